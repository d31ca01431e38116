# Sourced by the scripts that install Debian packages (install-deps.sh, provide-julia.sh):
# apt_get, which waits for a lock another process holds instead of failing on it.

# A new VM often runs unattended upgrades at first boot, which hold apt's and dpkg's locks
# for minutes: wait for them (up to lock_wait seconds) instead of dying on the first try.
lock_wait=600
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

# apt_get ARGS...: apt-get ARGS, waiting for a lock another process holds. The first try
# does not wait, so that a held lock can be reported; later ones wait inside apt for dpkg's
# lock (DPkg::Lock::Timeout). apt-get update takes the lists lock, which that option does
# not cover in the apt versions we know of, so a refusal naming any lock is retried until
# lock_wait is spent.
apt_get() {
  local out rc start=$SECONDS timeout=0 said=""
  out=$(mktemp)
  while :; do
    rc=0
    $sudo env LC_ALL=C DEBIAN_FRONTEND=noninteractive \
      apt-get -o DPkg::Lock::Timeout=$timeout "$@" >"$out" 2>&1 || rc=$?
    if [ $rc -eq 0 ] || ! grep -q "Could not get lock" "$out" || [ $((SECONDS - start)) -ge $lock_wait ]; then
      break
    fi
    if [ -z "$said" ]; then
      echo "install-deps: waiting up to ${lock_wait} s for the apt lock: $(grep -m1 "Could not get lock" "$out" | sed 's/^E: //')"
      said=1
    fi
    timeout=$((lock_wait - (SECONDS - start)))
    sleep 5
  done
  [ -n "$said" ] && [ $rc -eq 0 ] && echo "install-deps: got the apt lock after $((SECONDS - start)) s"
  [ $rc -eq 0 ] || cat "$out" >&2
  rm -f "$out"
  return $rc
}
