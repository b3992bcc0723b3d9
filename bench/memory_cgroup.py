"""Memory cgroups for runs that must stay within a limit: a child of this process's own cgroup (v1 or
v2, whichever the machine has), processes started inside it, and their peak memory. Used by
tests/memory/check_memory_limit.py and bench/larger_than_memory.py."""

import os
import subprocess
import tempfile
import time


class Skip(Exception):
    pass


def own_cgroups():
    """(controllers, path) of each line of /proc/self/cgroup."""
    with open("/proc/self/cgroup") as f:
        for line in f:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            yield controllers, path


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def make_cgroup(name, limit):
    """A child of this process's memory cgroup limited to `limit` bytes, swap off: (folder, peak file)."""
    tried = []
    for controllers, path in own_cgroups():
        if "memory" in controllers.split(","):  # v1
            parent = "/sys/fs/cgroup/memory" + path
            try:
                child = os.path.join(parent, name)
                os.makedirs(child, exist_ok=True)
                write(os.path.join(child, "memory.limit_in_bytes"), str(limit))
                if os.path.exists(os.path.join(child, "memory.memsw.limit_in_bytes")):
                    write(os.path.join(child, "memory.memsw.limit_in_bytes"), str(limit))
                return child, "memory.max_usage_in_bytes"
            except OSError as e:
                tried.append(f"v1 {parent}: {e}")
        elif controllers == "":  # v2, mounted alone or beside v1
            for root in ("/sys/fs/cgroup", "/sys/fs/cgroup/unified"):
                parent = root + path
                try:
                    with open(os.path.join(root, "cgroup.controllers")) as f:
                        if "memory" not in f.read().split():
                            raise OSError("no memory controller")
                    with open(os.path.join(parent, "cgroup.subtree_control")) as f:
                        if "memory" not in f.read().split():
                            write(os.path.join(parent, "cgroup.subtree_control"), "+memory")
                    child = os.path.join(parent, name)
                    os.makedirs(child, exist_ok=True)
                    write(os.path.join(child, "memory.max"), str(limit))
                    if os.path.exists(os.path.join(child, "memory.swap.max")):
                        write(os.path.join(child, "memory.swap.max"), "0")
                    return child, "memory.peak"
                except OSError as e:
                    tried.append(f"v2 {parent}: {e}")
    raise Skip("no memory cgroup can be made here (" + ("; ".join(tried) or "no memory controller") + ")")


def remove_cgroup(folder):
    for _ in range(50):
        try:
            os.rmdir(folder)
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.1)  # the last process is still leaving it


def run(cmd, cgroup=None):
    """Runs `cmd`, inside `cgroup` when given: (exit code or -signal, stdout, stderr, seconds, peak RSS bytes)."""
    def enter():
        write(os.path.join(cgroup, "cgroup.procs"), str(os.getpid()))
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, text=True, preexec_fn=enter if cgroup else None)
        _, status, usage = os.wait4(p.pid, 0)  # its own rusage, which Popen.wait would not give
        p.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        return p.returncode, out.read(), err.read(), seconds, usage.ru_maxrss * 1024



def peak_since_last(cgroup, peak_file):
    """The cgroup's peak memory since the last call (v1 and recent v2 kernels reset it when written)."""
    with open(os.path.join(cgroup, peak_file)) as f:
        value = int(f.read())
    try:
        write(os.path.join(cgroup, peak_file), "0")
    except OSError:
        pass
    return value


def evict_from_page_cache(path):
    """Drops the file's clean pages from the page cache, so that a run reads it from disk again."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
