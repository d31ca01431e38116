// A C++ program that loads libtsstore.so at run time (no link-time dependency): dlopen, dlsym
// with the header's declarations as the pointer types, the version check against the header
// it was compiled with, and a round trip with RAII ownership of the library and the store.
//
//   dlopen_consumer_cpp <path to libtsstore.so> <scratch directory>
#include <dlfcn.h>

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tsstore.h"

namespace {

struct Library {
    void *handle;
    explicit Library(const std::string &path) : handle(dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
        if (handle == nullptr) throw std::runtime_error(std::string("dlopen: ") + dlerror());
    }
    ~Library() { dlclose(handle); }
    Library(const Library &) = delete;
    Library &operator=(const Library &) = delete;

    template <typename F>
    F *symbol(const char *name) const {
        void *p = dlsym(handle, name);
        if (p == nullptr) throw std::runtime_error(std::string("dlsym(") + name + "): " + dlerror());
        return reinterpret_cast<F *>(p);
    }
};

struct Api {
    decltype(tsstore_version) *version;
    decltype(tsstore_create) *create;
    decltype(tsstore_add) *add;
    decltype(tsstore_get) *get;
    decltype(tsstore_close) *close;
    decltype(tsstore_last_error_message) *last_error_message;

    explicit Api(const Library &lib)
        : version(lib.symbol<decltype(tsstore_version)>("tsstore_version")),
          create(lib.symbol<decltype(tsstore_create)>("tsstore_create")),
          add(lib.symbol<decltype(tsstore_add)>("tsstore_add")),
          get(lib.symbol<decltype(tsstore_get)>("tsstore_get")),
          close(lib.symbol<decltype(tsstore_close)>("tsstore_close")),
          last_error_message(lib.symbol<decltype(tsstore_last_error_message)>("tsstore_last_error_message")) {}

    void check(int32_t status, const char *what) const {
        if (status == TSSTORE_OK) return;
        std::vector<char> msg(512);
        last_error_message(msg.data(), msg.size(), nullptr);
        throw std::runtime_error(std::string(what) + ": " + msg.data());
    }
};

}  // namespace

int main(int argc, char **argv) try {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s LIBTSSTORE DIR\n", argv[0]);
        return 2;
    }
    const std::string path = std::string(argv[2]) + "/dlopen_cpp.nc";
    std::remove(path.c_str());
    std::remove((path + ".sqlite").c_str());

    Library lib(argv[1]);
    Api api(lib);
    const int32_t v = api.version();
    if (v / 100 != TSSTORE_VERSION_NUMBER / 100)
        throw std::runtime_error("library " + std::to_string(v) + ", header " + std::to_string(TSSTORE_VERSION_NUMBER));

    std::vector<double> load(48), back(48);
    for (size_t h = 0; h < load.size(); h++) load[h] = 0.5 * static_cast<double>(h);
    int64_t shape[1] = {static_cast<int64_t>(load.size())};
    tsstore_series_desc d = TSSTORE_SERIES_DESC_INIT;
    d.owner_id = 3, d.owner_type = "ThermalStandard", d.name = "max_active_power";
    d.initial_ms = 1893456000000LL;
    d.resolution = tsstore_period{3600000, TSSTORE_PERIOD_MILLIS, 0};
    d.shape = shape, d.ndim = 1, d.data = load.data(), d.nbytes = load.size() * sizeof(double);

    auto close_store = [&api](tsstore_store *s) { api.close(s); };
    std::unique_ptr<tsstore_store, decltype(close_store)> store(nullptr, close_store);
    tsstore_store *raw = nullptr;
    api.check(api.create(path.c_str(), nullptr, &raw), "create");
    store.reset(raw);
    api.check(api.add(store.get(), &d, nullptr), "add");
    tsstore_lookup which = TSSTORE_LOOKUP_INIT;
    which.owner_id = 3, which.name = "max_active_power";
    tsstore_series_info info = TSSTORE_SERIES_INFO_INIT;
    api.check(api.get(store.get(), &which, back.data(), back.size() * sizeof(double), &info), "get");
    if (back != load || info.nbytes != back.size() * sizeof(double))
        throw std::runtime_error("read back other values than were added");
    store.reset();
    std::printf("dlopen_consumer_cpp: version %d, round trip of %zu values\n", v, back.size());
    return 0;
} catch (const std::exception &e) {
    std::fprintf(stderr, "dlopen_consumer_cpp: %s\n", e.what());
    return 1;
}
