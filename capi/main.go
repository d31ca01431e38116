// Command capi is the C library of tsstore: //export functions that translate between the C
// contract of include/tsstore.h and the Go core. It is built with -buildmode=c-shared
// (libtsstore.so) and -buildmode=c-archive (libtsstore.a). No store logic lives here: every
// function checks its arguments, calls the core, and maps the result back. The header
// cgo generates is not installed; include/tsstore.h is the contract.
package main

// #include "capi.h"
import "C"

import (
	"errors"
	"io/fs"
	"sync"
	"time"
	"unsafe"

	"github.com/tsstore/tsstore/core"
)

func main() {}

// storeHandle is a store, its last error message, and the C copies of the strings and
// feature arrays its calls handed out (freed at tsstore_close).
type storeHandle struct {
	s       *core.Store
	mu      sync.Mutex
	lastErr string
	text    interner
}

func (h *storeHandle) setError(msg string) {
	h.mu.Lock()
	h.lastErr = msg
	h.mu.Unlock()
}

func getStore(p C.uintptr_t) (*storeHandle, error) {
	v, ok := lookup(uintptr(p), kindStore)
	if !ok {
		return nil, badHandle("store")
	}
	return v.(*storeHandle), nil
}

//export tsstore_version
func tsstore_version() C.int32_t { return C.TSSTORE_VERSION_NUMBER }

//export tsstore_status_name
func tsstore_status_name(status C.int32_t) *C.char {
	return statusName(status)
}

func openResult(s *core.Store, err error, out *C.uintptr_t) C.int32_t {
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// The header's NOT_FOUND: no such file or directory, whatever layer saw it.
			return fail(nil, notFound(err))
		}
		return fail(nil, err)
	}
	*out = C.uintptr_t(register(kindStore, &storeHandle{s: s}))
	return statusOK
}

func compressionOf(p *C.char) (*core.CreateOptions, error) {
	if p == nil {
		return nil, nil
	}
	c, err := core.ParseCompression(C.GoString(p))
	if err != nil {
		return nil, err
	}
	return &core.CreateOptions{Compression: &c}, nil
}

//export tsstore_create
func tsstore_create(path, compression *C.char, out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	return openPath(path, out, func(p string) (*core.Store, error) {
		opts, err := compressionOf(compression)
		if err != nil {
			return nil, err
		}
		return core.Create(p, opts)
	})
}

//export tsstore_open
func tsstore_open(path *C.char, readOnly C.int32_t, out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	return openPath(path, out, func(p string) (*core.Store, error) {
		if readOnly != 0 {
			return core.OpenReadOnly(p)
		}
		return core.Open(p)
	})
}

// openPath checks out (and clears it) and path, then registers the store open makes of it.
func openPath(path *C.char, out *C.uintptr_t, open func(p string) (*core.Store, error)) C.int32_t {
	if out == nil {
		return fail(nil, nullOut("out"))
	}
	*out = 0
	p, err := reqString(path, core.ArgPath)
	if err != nil {
		return fail(nil, err)
	}
	s, err := open(p)
	return openResult(s, err, out)
}

//export tsstore_open_in_memory
func tsstore_open_in_memory(compression *C.char, out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	if out == nil {
		return fail(nil, nullOut("out"))
	}
	*out = 0
	opts, err := compressionOf(compression)
	if err != nil {
		return fail(nil, err)
	}
	s, err := core.InMemory(opts)
	return openResult(s, err, out)
}

//export tsstore_close
func tsstore_close(p C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	v := unregister(uintptr(p), kindStore)
	if v == nil {
		return statusOK
	}
	h := v.(*storeHandle)
	defer h.text.free()
	if err := h.s.Close(); err != nil {
		return fail(nil, err)
	}
	return statusOK
}

// withStore runs fn on a live store, recording a failure on the thread and the store, and,
// when the debug log is on, what the call did.
func withStore(p C.uintptr_t, fn func(*core.Store) error) C.int32_t {
	return withHandle(p, func(h *storeHandle) error { return fn(h.s) })
}

// withHandle is withStore for a call that hands out strings (its answers' strings are the
// store handle's).
func withHandle(p C.uintptr_t, fn func(*storeHandle) error) C.int32_t {
	h, err := getStore(p)
	if err != nil {
		return fail(nil, err)
	}
	if logging() {
		before, start := h.s.Stats(), time.Now()
		defer func() { logCall(callerName(), before, h.s.Stats(), time.Since(start)) }()
	}
	if err := fn(h); err != nil {
		return fail(h, err)
	}
	return statusOK
}

//export tsstore_set_log_callback
func tsstore_set_log_callback(fn unsafe.Pointer, user unsafe.Pointer) (status C.int32_t) {
	defer guard(&status)
	logState.Lock()
	logState.fn, logState.user = fn, user
	logState.Unlock()
	return statusOK
}

//export tsstore_flush
func tsstore_flush(p C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error { return s.Flush() })
}

//export tsstore_persist
func tsstore_persist(p C.uintptr_t, path *C.char) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		dst, err := reqString(path, core.ArgPath)
		if err != nil {
			return err
		}
		return s.Persist(dst)
	})
}

//export tsstore_store_recovered
func tsstore_store_recovered(p C.uintptr_t, buf *C.char, capacity C.size_t, needed *C.size_t) (status C.int32_t) {
	defer guard(&status)
	h, err := getStore(p)
	if err != nil {
		return fail(nil, err)
	}
	if err := putString(h.s.Recovered(), buf, capacity, needed); err != nil {
		return fail(nil, err)
	}
	return statusOK
}

//export tsstore_store_last_error
func tsstore_store_last_error(p C.uintptr_t, buf *C.char, capacity C.size_t, needed *C.size_t) (status C.int32_t) {
	defer guard(&status)
	h, err := getStore(p)
	if err != nil {
		return fail(nil, err)
	}
	h.mu.Lock()
	msg := h.lastErr
	h.mu.Unlock()
	if err := putString(msg, buf, capacity, needed); err != nil {
		return fail(nil, err) // the thread's message, not the store's: that one is being read
	}
	return statusOK
}
