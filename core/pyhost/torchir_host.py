"""torchir Python host: runs ops defined in Python on behalf of torchir studio.

The C++ program starts this script with the user's Python:

    PYTHON -c <this text> SOCKFD [--threads N] [--import MODULE]...
                                 [--executors FILE.py]...

The text is embedded in the C++ binary, so nothing here may rely on __file__.
SOCKFD is an inherited AF_UNIX stream socket that carries every message.

Framing, both ways: an 8-byte header (little-endian uint32 body_length,
uint32 fd_count) with fd_count file descriptors attached to it as SCM_RIGHTS,
then body_length bytes of UTF-8 JSON.  EOF at a message boundary ends the host.

The host first sends {"type":"ready", python, executable, torch, torch_error,
import_errors, executors}; then each request gets exactly one reply, in order:

    {"type":"ping"}                                 -> {"ok":true}
    {"type":"schema","op":"ns::name","overload":O}  -> {"ok":true,"schema":S}
    {"type":"locate","op":"ns::name","modules":[M],"packages":[P]}
        -> {"ok":true,"modules":[{"module":M,"found":bool,"defines":0|1|2}]}  (each module's
        source read, and the packages' modules scanned, never imported; 2: defines the op,
        1: names it)
    {"type":"call","op":..,"overload":..,"args":[V],"kwargs":{k:V}}
                                                    -> {"ok":true,"outputs":[V]}
    {"type":"execute","name":N,"inputs":[V],"attrs":{...}}
                                                    -> {"ok":true,"outputs":[V]}
    failures -> {"ok":false,"error":"Type: message","traceback":"..."}

A call or execute may also say "arena_free" (where in the arena outputs may go),
"spares" (shared buffers outputs may go in, [{"pool":P,"bytes":B}]) and "threads"
(the caller's intra-op thread count, which the op runs on).  Any request may say
"forget": [P] (buffers the caller no longer has: unmapped here).

Values V are tagged JSON objects: {"t":"none"}, {"t":"bool"|"int"|"float"|"str",
"v":..} (non-finite floats as "inf", "-inf", "nan"), {"t":"list","v":[V]},
{"t":"dtype"|"device"|"layout"|"memory_format","v":"name"}, and tensors
{"t":"tensor","fd":I,"bytes":B,"dtype":D,"shape":[..],"strides":[..],"offset":O}
where I indexes the message's fds (a memfd of at least B bytes holding the
storage; -1 when B is 0) and O is the storage offset in elements.  A tensor
with "file_offset":F instead names B bytes at offset F of the file behind fd
I (a weight the caller mapped from its file, read-only there): it is mapped
copy-on-write, so an op's writes never reach the file.  A tensor with
"arena":A is at byte A of the arena; one with "pool":P is at the start of
shared buffer P.  A tensor or spare that carries both "pool":P and "fd":I
hands the buffer over: fd I is mapped as P and kept until the caller says to
forget it.  Inputs are seen where they are (in-place ops write straight through
to the C++ side); outputs are copied, contiguous, into the arena, a spare, or
failing those a fresh memfd sealed at its size, which the caller keeps as a
buffer of its own.
"""

import sys

# `python -c` puts the current directory first on sys.path, where a file named
# like a module of the standard library or of torch (socket.py, torch.py, in
# an unpacked model folder) would run in its place.  It goes last instead, so
# that --import still finds the user's modules there.
if sys.path and sys.path[0] in ("", "."):
    sys.path.pop(0)

import array
import ctypes
import fcntl
import importlib
import importlib.util
import importlib.machinery
import json
import math
import mmap
import os
import platform
import re
import select
import signal
import socket
import stat
import struct
import threading
import time
import traceback

HEADER = struct.Struct("<II")
MAX_BODY = 256 * 1024 * 1024
# Most fds one message may carry, both ways (the C++ side sizes its buffers
# to the same number).  The kernel's own limit is 253.
MAX_FDS = 64
INT64_MIN, INT64_MAX = -(2 ** 63), 2 ** 63 - 1
# Received fds must not leak into processes that an op may start.
RECV_FLAGS = getattr(socket, "MSG_CMSG_CLOEXEC", 0)
FDS_SPACE = socket.CMSG_SPACE(MAX_FDS * array.array("i").itemsize)
# Python >= 3.13 can map without keeping a dup of the fd for every mapping.
MMAP_OPTIONS = {"trackfd": False} if sys.version_info >= (3, 13) else {}

torch = None  # imported in main(), so a missing torch can still be reported
# The region both processes map for the worker's life (--arena FD:BYTES): small tensors travel
# through it as an offset, without a descriptor or a mapping of their own. A uint8 tensor over it.
ARENA = None
# The caller's shared buffers this worker has mapped, by number: uint8 tensors over them. Large
# tensors travel through them call after call, their pages faulted in once.
BUFFERS = {}


class UsageError(Exception):
    """Bad command line; there is no one to tell but stderr."""


class Host:
    """What lives for the whole session."""

    def __init__(self, sock):
        self.sock = sock
        self.registry = None       # torch_ir's _EXECUTION_REGISTRY, if any
        self.ops = {}              # (op, overload) -> OpOverload
        self.busy = False          # inside a request: Ctrl+C interrupts the op
        self.threads = None        # torch's intra-op threads as last set


class Scratch:
    """Per-message fds, closed only after the reply has been sent.

    Input mmaps are not here on purpose: torch.frombuffer keeps the mmap
    object alive but holds no buffer export, so mmap.close() would succeed
    and unmap memory under any tensor an op kept.  Each mapping is owned by
    the tensors' storage instead and goes when the last of them does.
    """

    def __init__(self, fds):
        self.fds = fds       # received with the request
        self.out_fds = []    # memfds of output tensors, sent with the reply
        self.arena_next = 0  # where outputs may go in the arena: past the request's inputs
        self.spares = []     # (bytes, pool) of the buffers outputs may go in, untaken

    def release_outputs(self):
        close_fds(self.out_fds)
        self.out_fds = []

    def release(self):
        self.release_outputs()
        close_fds(self.fds)
        self.fds = []


def close_fds(fds):
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def one_line(text):
    return " ".join(str(text).split())


def describe(exc):
    message = str(exc)
    return "%s: %s" % (type(exc).__name__, message) if message else type(exc).__name__


# ---------------------------------------------------------------- transport

def read_header(sock):
    """Returns (body_length, fd_count, fds, fds_truncated), or None at EOF."""
    header = b""
    fds = []
    truncated = False
    while len(header) < HEADER.size:
        # fds arrive with the first chunk; later chunks may still carry some
        # if the peer misbehaves, so keep them all to close them.
        data, got, flags = recv_fds(sock, HEADER.size - len(header))
        fds.extend(got)
        truncated = truncated or bool(flags & socket.MSG_CTRUNC)
        if not data:
            close_fds(fds)
            if header:
                raise EOFError("connection closed inside a message header")
            return None
        header += data
    length, fd_count = HEADER.unpack(header)
    return length, fd_count, fds, truncated


def recv_fds(sock, size):
    """socket.recv_fds, but with RECV_FLAGS: the stdlib one drops its flags."""
    data, ancdata, flags, _ = sock.recvmsg(size, FDS_SPACE, RECV_FLAGS)
    fds = array.array("i")
    for level, kind, payload in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
    return data, list(fds), flags


def read_body(sock, length):
    body = bytearray(length)
    view = memoryview(body)
    got = 0
    while got < length:
        n = sock.recv_into(view[got:])
        if n == 0:
            raise EOFError("connection closed inside a message body")
        got += n
    return body


def send_message(sock, body, fds):
    header = HEADER.pack(len(body), len(fds))
    ancillary = []
    if fds:
        ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                      array.array("i", fds).tobytes())]
    # One sendmsg carries header and body; the fds ride on the first bytes,
    # which are the header's.
    sent = sock.sendmsg([header, body], ancillary)
    if sent < len(header):
        sock.sendall(header[sent:])
        sent = len(header)
    if sent < len(header) + len(body):
        sock.sendall(memoryview(body)[sent - len(header):])


# One encoder for the session: json.dumps with options builds a new one per
# call.  allow_nan=False: the peer's JSON has no NaN; floats are encoded first.
ENCODER = json.JSONEncoder(allow_nan=False, separators=(",", ":"))


def dumps(obj):
    return ENCODER.encode(obj).encode()


# ---------------------------------------------------------------- values in

def is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def need(cond, message, *args):
    # The message is formatted only on failure: these checks run per value.
    if not cond:
        raise ValueError(message % args if args else message)


def decode(v, scratch):
    need(isinstance(v, dict) and isinstance(v.get("t"), str),
         "a value must be an object with a string \"t\", got %r", v)
    t = v["t"]
    x = v.get("v")
    if t == "tensor":
        return decode_tensor(v, scratch)
    if t == "none":
        return None
    if t == "bool":
        need(isinstance(x, bool), "bool value is not a boolean: %r", x)
        return x
    if t == "int":
        need(is_int(x), "int value is not an integer: %r", x)
        return x
    if t == "float":
        if x in ("inf", "-inf", "nan"):
            return float(x)
        need(is_int(x) or isinstance(x, float), "float value is not a number: %r", x)
        return float(x)
    if t == "str":
        need(isinstance(x, str), "str value is not a string: %r", x)
        return x
    if t == "list":
        need(isinstance(x, list), "list value is not an array: %r", x)
        return [decode(item, scratch) for item in x]
    if t == "dtype":
        return torch_constant(x, torch.dtype, "dtype")
    if t == "device":
        need(isinstance(x, str), "device value is not a string: %r", x)
        return torch.device(x)
    if t == "layout":
        return torch_constant(x, torch.layout, "layout")
    if t == "memory_format":
        return torch_constant(x, torch.memory_format, "memory_format")
    raise ValueError("unknown value tag %r" % (t,))


def torch_constant(name, kind, what):
    """torch.<name>, checked to be of the expected type."""
    value = getattr(torch, name, None) if isinstance(name, str) else None
    need(isinstance(value, kind), "unknown %s %r", what, name)
    return value


def element_size(dtype):
    size = getattr(dtype, "itemsize", None)  # torch >= 2.1
    if size is None:
        size = torch.empty(0, dtype=dtype).element_size()
    return size


def int_list(x, what):
    need(isinstance(x, list) and all(is_int(i) and i >= 0 for i in x),
         "tensor %s must be a list of non-negative integers, got %r", what, x)
    return x


def decode_tensor(v, scratch):
    key = arena_key(v)
    view = arena_view(key) if key is not None else None
    if view is not None:
        return view
    dtype = torch_constant(v.get("dtype"), torch.dtype, "dtype")
    shape = int_list(v.get("shape"), "shape")
    strides = int_list(v.get("strides"), "strides")
    nbytes = v.get("bytes")
    offset = v.get("offset", 0)
    index = v.get("fd")
    need(len(strides) == len(shape),
         "tensor has %d sizes but %d strides", len(shape), len(strides))
    need(is_int(nbytes) and nbytes >= 0, "tensor bytes must be >= 0: %r", nbytes)
    need(is_int(offset) and offset >= 0, "tensor offset must be >= 0: %r", offset)
    size = element_size(dtype)
    need(nbytes % size == 0, "tensor bytes %d is not a multiple of the %s "
         "element size %d", nbytes, dtype, size)
    # Elements the view reaches, counted from the start of the storage.
    extent = offset
    if all(shape):
        extent += 1 + sum((n - 1) * s for n, s in zip(shape, strides))
    need(extent * size <= nbytes, "tensor of shape %s, strides %s, offset %d "
         "needs %d bytes but has %d", shape, strides, offset, extent * size, nbytes)
    if nbytes == 0:
        return torch.empty_strided(shape, strides, dtype=dtype)
    at = v.get("arena")
    if at is not None:
        need(ARENA is not None and is_int(at) and at >= 0 and at % size == 0 and at + nbytes <= ARENA.numel(),
             "tensor arena offset %r is outside the arena", at)
        if key is not None:
            return keep_arena_view(key, at, nbytes, dtype)
        # storage offsets count from the arena's start
        return ARENA[at:at + nbytes].view(dtype).as_strided(shape, strides, at // size + offset)
    pool = v.get("pool")
    if pool is not None:
        buffer = shared_buffer(v, scratch)
        need(nbytes <= buffer.numel(), "tensor of %d bytes in shared buffer %r of %d", nbytes, pool, buffer.numel())
        return buffer[:nbytes].view(dtype).as_strided(shape, strides, offset)
    need(is_int(index) and 0 <= index < len(scratch.fds),
         "tensor fd index %r, but the message has %d fds", index, len(scratch.fds))
    file_offset = v.get("file_offset")
    if file_offset is not None:
        # a weight in a file the caller mapped: its own pages, copied only where the op writes
        need(is_int(file_offset) and file_offset >= 0 and file_offset % size == 0,
             "tensor file offset %r is not a non-negative multiple of its element size", file_offset)
        skip = file_offset % mmap.ALLOCATIONGRANULARITY
        mm = mmap.mmap(scratch.fds[index], skip + nbytes, access=mmap.ACCESS_COPY,
                       offset=file_offset - skip, **MMAP_OPTIONS)
        flat = torch.frombuffer(mm, dtype=torch.uint8, count=nbytes, offset=skip).view(dtype)
        return flat.as_strided(shape, strides, offset)
    # Shared read/write mapping: in-place ops write through to the C++ side.
    # The storage keeps mm alive, so it is unmapped with the last tensor.
    # The uint8 view first lets any dtype (bool included) reinterpret bytes.
    mm = mmap.mmap(scratch.fds[index], nbytes, **MMAP_OPTIONS)
    flat = torch.frombuffer(mm, dtype=torch.uint8, count=nbytes).view(dtype)
    return flat.as_strided(shape, strides, offset)


def shared_buffer(v, scratch):
    """The buffer v names by "pool", mapped first from the message's fd when v carries one."""
    pool, index = v.get("pool"), v.get("fd")
    need(is_int(pool) and pool >= 0, "shared buffer number %r", pool)
    if index is not None:
        need(is_int(index) and 0 <= index < len(scratch.fds),
             "shared buffer fd index %r, but the message has %d fds", index, len(scratch.fds))
        size = os.fstat(scratch.fds[index]).st_size
        need(size > 0, "shared buffer %d is empty", pool)
        # the storage keeps the mapping: it goes when the caller says to forget the buffer and
        # no tensor an op kept is over it
        BUFFERS[pool] = torch.frombuffer(mmap.mmap(scratch.fds[index], size, **MMAP_OPTIONS), dtype=torch.uint8)
    buffer = BUFFERS.get(pool)
    need(buffer is not None, "shared buffer %d was never handed over", pool)
    return buffer


def take_spares(request, scratch):
    spares = request.get("spares", [])
    need(isinstance(spares, list), "spares must be a list")
    for s in spares:
        need(isinstance(s, dict), "a spare must be an object")
        scratch.spares.append((shared_buffer(s, scratch).numel(), s["pool"]))


def forget_buffers(request):
    forget = request.get("forget", [])
    need(isinstance(forget, list), "forget must be a list")
    for pool in forget:
        if is_int(pool):
            BUFFERS.pop(pool, None)


# The arena's bytes for a tensor, by the message's words for it, each checked once: a program's
# calls put tensors of the same shapes at the same places call after call, and checking a tensor's
# words costs more than a small op's own call. What is kept is a flat view of the bytes at the
# dtype, never handed to an op; each call gets a view of its own on it, so what an op does to the
# tensor object (x.t_(), x.set_(), an attribute) stays with that call.
ARENA_VIEWS = {}
ARENA_VIEWS_MAX = 1024


def arena_key(v):
    """What names an arena tensor in a message, or None for one that is not in the arena or
    whose words cannot be a key (decode_tensor then says what is wrong with them)."""
    at = v.get("arena")
    if at is None:
        return None
    try:
        key = (at, v.get("bytes"), v.get("dtype"), tuple(v.get("shape")), tuple(v.get("strides")), v.get("offset", 0))
        hash(key)
    except TypeError:
        return None
    return key


def arena_view(key):
    """A new view on the checked bytes `key` names, or None when they were not checked yet."""
    flat = ARENA_VIEWS.get(key)
    if flat is None:
        return None
    at, _, _, shape, strides, offset = key
    # storage offsets count from the arena's start
    return flat.as_strided(shape, strides, at // flat.element_size() + offset)


def keep_arena_view(key, at, nbytes, dtype):
    """Checks in the arena's bytes [at, at + nbytes) at `dtype` under `key`; returns a view of them."""
    if len(ARENA_VIEWS) >= ARENA_VIEWS_MAX:
        ARENA_VIEWS.clear()
    ARENA_VIEWS[key] = ARENA[at:at + nbytes].view(dtype)
    return arena_view(key)


# ---------------------------------------------------------------- values out

def encode(x, scratch):
    if isinstance(x, torch.Tensor):
        return encode_tensor(x, scratch)
    if x is None:
        return {"t": "none"}
    if isinstance(x, bool):
        return {"t": "bool", "v": x}
    if isinstance(x, int):
        need(INT64_MIN <= x <= INT64_MAX, "the op returned an int beyond 64 bits: %d", x)
        return {"t": "int", "v": int(x)}
    if isinstance(x, float):
        if math.isfinite(x):
            return {"t": "float", "v": float(x)}
        return {"t": "float", "v": "nan" if x != x else ("inf" if x > 0 else "-inf")}
    if isinstance(x, str):
        return {"t": "str", "v": str(x)}
    if isinstance(x, (list, tuple)):
        return {"t": "list", "v": [encode(item, scratch) for item in x]}
    for kind, tag in ((torch.dtype, "dtype"), (torch.layout, "layout"),
                      (torch.memory_format, "memory_format")):
        if isinstance(x, kind):
            return {"t": tag, "v": str(x).replace("torch.", "", 1)}
    if isinstance(x, torch.device):
        return {"t": "device", "v": str(x)}
    raise ValueError("cannot send a value of type %s.%s back to torchir"
                     % (type(x).__module__, type(x).__qualname__))


def plain_tensor(t):
    """t as a dense CPU torch.Tensor, or a ValueError saying why not."""
    kind = None
    if t.is_quantized:
        kind = "quantized"
    elif t.is_nested:
        kind = "nested"
    elif t.layout != torch.strided:
        kind = str(t.layout).replace("torch.", "", 1)
    elif t.device.type != "cpu":
        kind = t.device.type
    if kind is not None:
        raise ValueError("the op returned a %s tensor; torchir takes dense CPU "
                         "tensors" % kind)
    if type(t) is not torch.Tensor and not isinstance(t, torch.nn.Parameter):
        # Wrapper subclasses (torchao's and the like) have no plain storage.
        try:
            from torch.utils._python_dispatch import is_traceable_wrapper_subclass
        except ImportError:
            is_traceable_wrapper_subclass = None
        if is_traceable_wrapper_subclass is not None and is_traceable_wrapper_subclass(t):
            raise ValueError("the op returned a %s tensor subclass; torchir takes "
                             "dense CPU tensors" % type(t).__qualname__)
        t = t.as_subclass(torch.Tensor)
    return t


def dtype_name(dtype):
    name = DTYPE_NAMES.get(dtype)
    if name is None:
        name = DTYPE_NAMES[dtype] = str(dtype).replace("torch.", "", 1)
    return name


DTYPE_NAMES = {}


def encode_tensor(t, scratch):
    # the bytes as the values are: a conjugate or negative view's bits resolved first
    t = plain_tensor(t).detach().resolve_conj().resolve_neg().contiguous()
    nbytes = t.numel() * t.element_size()
    index = -1
    at = align_up(scratch.arena_next)
    if 0 < nbytes <= ARENA_TENSOR_BYTES and ARENA is not None and at + nbytes <= ARENA.numel():
        name = dtype_name(t.dtype)
        shape, strides = tuple(t.shape), t.stride()
        key = (at, nbytes, name, shape, strides, 0)
        view = arena_view(key)
        if view is None:
            view = keep_arena_view(key, at, nbytes, t.dtype)
        view.copy_(t)
        scratch.arena_next = at + nbytes
        return {"t": "tensor", "arena": at, "bytes": nbytes, "dtype": name,
                "shape": list(shape), "strides": list(strides), "offset": 0}
    value = {"t": "tensor", "bytes": nbytes, "dtype": dtype_name(t.dtype),
             "shape": list(t.shape), "strides": list(t.stride()), "offset": 0}
    spare = best_spare(scratch, nbytes) if nbytes > 0 else None
    if spare is not None:
        # the caller's buffer, mapped here since an earlier call: one copy, no fresh pages
        BUFFERS[spare][:nbytes].view(t.dtype).view(t.shape).copy_(t)
        value["pool"] = spare
        return value
    if nbytes > 0:
        need(len(scratch.out_fds) < MAX_FDS,
             "the reply would carry more than %d tensors", MAX_FDS)
        fd = os.memfd_create("torchir-out", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        scratch.out_fds.append(fd)  # closed after sending, or on error
        write_all(fd, t, nbytes)
        # sealed at its size: the caller maps it as the output's storage and keeps it as a buffer
        # for later calls, which write into it again
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
        index = len(scratch.out_fds) - 1
    value["fd"] = index
    return value


# A spare suits an output that fills at least half of it (less one grain of the caller's sizes):
# a small output must not hold a large buffer for as long as the caller keeps it.
SPARE_GRAIN = 2 * 1024 * 1024


def best_spare(scratch, nbytes):
    """The smallest untaken spare that suits nbytes, taken; None if none does."""
    fits = [s for s in scratch.spares if s[0] >= nbytes and s[0] - nbytes <= nbytes + SPARE_GRAIN]
    if not fits:
        return None
    best = min(fits)
    scratch.spares.remove(best)
    return best[1]


# Outputs up to this size go into the arena when they fit (the C++ side's kArenaTensorBytes).
ARENA_TENSOR_BYTES = 64 * 1024


def align_up(n):
    return (n + 63) & ~63


def write_all(fd, t, nbytes):
    """Writes the bytes of contiguous CPU tensor t into fd.

    write() through a ctypes view of the tensor's memory costs about half of
    what mmap + copy + munmap does for small tensors, and needs neither numpy
    (absent for some dtypes and some installs) nor an extra copy.  t stays
    alive for the whole call, so the pointer stays valid.
    """
    view = memoryview((ctypes.c_char * nbytes).from_address(t.data_ptr())).cast("B")
    done = 0
    while done < nbytes:
        done += os.write(fd, view[done:])


# ---------------------------------------------------------------- requests

def lookup_op(ns, name, overload):
    packet = getattr(getattr(torch.ops, ns), name)
    return getattr(packet, overload)


def find_op(host, op, overload):
    key = (op, overload)
    found = host.ops.get(key)
    if found is None:
        found = resolve_op(host, op, overload)
        host.ops[key] = found
    return found


def resolve_op(host, op, overload):
    need(isinstance(op, str) and "::" in op, "op must be \"namespace::name\", got %r", op)
    need(isinstance(overload, str) and overload, "overload must be a non-empty string")
    ns, name = op.split("::", 1)
    need(ns and name, "op must be \"namespace::name\", got %r", op)
    # Only the modules the user named define ops here: a name from a program file never chooses
    # what is imported (a library such as torchvision registers its ops when the user names it).
    try:
        found = lookup_op(ns, name, overload)
    except (AttributeError, RuntimeError) as error:
        raise ValueError("no operator %s.%s (%s); name the module that defines it with "
                         "--python-import" % (op, overload, one_line(error))) from None
    # Guards against names like "__class__" that getattr resolves to non-ops.
    need(isinstance(found, torch._ops.OpOverload), "%s.%s is not an operator", op, overload)
    return found


def decode_list(x, what, scratch):
    need(isinstance(x, list), "%s must be an array", what)
    return [decode(v, scratch) for v in x]


def do_schema(host, request, scratch):
    op = find_op(host, request.get("op"), request.get("overload", "default"))
    return {"ok": True, "schema": str(op._schema)}


# The most source read per module when looking for an op's definition.
MAX_SOURCE_BYTES = 8 * 1024 * 1024
MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def module_source(module):
    """The .py file `module` would be imported from, found as the import system finds it, without
    importing it or its packages (no package's __init__ runs); None when there is none."""
    folders = module_folders(module.rsplit(".", 1)[0]) if "." in module else None
    last = module.rsplit(".", 1)[-1]
    if folders is None:  # a top-level module: as sys.path's finders see it
        try:
            spec = importlib.machinery.PathFinder.find_spec(last)
        except Exception:  # a finder's own failure says only that it is not found
            return None
        origin = getattr(spec, "origin", None)
        return origin if isinstance(origin, str) and origin.endswith(".py") else None
    for folder in folders:
        for path in (os.path.join(folder, last, "__init__.py"), os.path.join(folder, last + ".py")):
            if os.path.isfile(path):
                return path
    return None


def module_folders(package):
    """The folders `package`'s modules are in (several for a namespace package), found on sys.path
    and then folder by folder; [] when it is no package."""
    parts = package.split(".")
    try:
        spec = importlib.machinery.PathFinder.find_spec(parts[0])
    except Exception:
        return []
    # a namespace package's path object would recalculate itself through sys.modules: its list
    locations = getattr(spec, "submodule_search_locations", None)
    folders = list(getattr(locations, "_path", locations) or [])
    for part in parts[1:]:
        folders = [os.path.join(f, part) for f in folders if os.path.isdir(os.path.join(f, part))]
        # a regular package hides the namespace portions beside it, as the import system does
        regular = [f for f in folders if os.path.isfile(os.path.join(f, "__init__.py"))]
        folders = regular[:1] or folders
    return folders


def defines_op(source, ns, name):
    """How surely a module's source registers ns::name: 2 where it defines it (custom_op or
    torch.library.define of the qualified name, or a Library of namespace ns defining name(...)
    or registering a kernel of it, as a module that loads the op's C++ library does),
    1 where it only names it ("ns::name": a register_fake, an impl, a mention), else 0."""
    word = r"(?![A-Za-z0-9_])"
    qualified = re.escape(ns + "::" + name) + word
    if re.search(r"""(custom_op|define)\(\s*['"]%s""" % qualified, source):
        return 2
    if re.search(r"""Library\(\s*['"]%s['"]""" % re.escape(ns), source) and (
            re.search(r"""define\(\s*['"]%s%s\s*\(""" % (re.escape(name), word), source) or
            re.search(r"""impl\([^)\n]{0,200}['"]%s['"]""" % re.escape(name), source)):
        return 2
    return 1 if re.search(qualified, source) else 0


# Bounds on a library's scan: entries walked and bytes read (transformers holds ~4000 files, 60 MB).
MAX_SCANNED_FILES = 20000
MAX_SCANNED_BYTES = 256 * 1024 * 1024


def scan_package(package, ns, name):
    """(how surely, module) of an installed package's modules whose source registers ns::name,
    read file by file without importing any: surest first, then those outside examples and
    tests, then shallower ones."""
    folders = module_folders(package)
    if not folders:
        return []
    root = folders[0]
    prefix = package.rsplit(".", 1)[0] + "." if "." in package else ""
    needle = ns.encode()
    found, entries, read = [], 0, 0
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if MODULE_NAME.fullmatch(d))
        entries += len(dirs) + len(names)
        if entries > MAX_SCANNED_FILES or read > MAX_SCANNED_BYTES:
            break
        for file in sorted(names):
            if read > MAX_SCANNED_BYTES:
                break
            if not file.endswith(".py") or not MODULE_NAME.fullmatch(file[:-3]):
                continue
            path = os.path.join(folder, file)
            try:
                # only regular files: a FIFO or a device would block the read
                if not stat.S_ISREG(os.stat(path).st_mode):
                    continue
                with open(path, "rb") as f:
                    data = f.read(MAX_SOURCE_BYTES)
            except OSError:
                continue
            read += len(data)
            surely = defines_op(data.decode("utf-8", "replace"), ns, name) if needle in data else 0
            if not surely:
                continue
            parts = os.path.relpath(os.path.join(folder, file[:-3]), os.path.dirname(root)).split(os.sep)
            if parts[-1] == "__init__":
                parts.pop()
            found.append((surely, prefix + ".".join(parts)))
    aside = ("examples", "example", "test", "tests", "testing", "benchmarks")
    found.sort(key=lambda f: (-f[0], any(p in aside for p in f[1].split(".")), f[1].count("."), f[1]))
    return found


def do_locate(host, request, scratch):
    """Which of the modules a program points to define its op, read from their source files
    alone, and which modules of the libraries named ("packages") do: nothing is imported (a
    program names what it likes; the user chooses the imports)."""
    op = request.get("op")
    need(isinstance(op, str) and "::" in op, "op must be \"namespace::name\", got %r", op)
    ns, name = op.split("::", 1)
    modules = request.get("modules", [])
    need(isinstance(modules, list) and len(modules) <= 64, "modules must be a list of at most 64 names")
    packages = request.get("packages", [])
    need(isinstance(packages, list) and len(packages) <= 4, "packages must be a list of at most 4 names")
    found = []
    for module in modules:
        need(isinstance(module, str) and len(module) <= 200 and MODULE_NAME.fullmatch(module),
             "%r is not a module name", module)
        path = module_source(module)
        surely = 0
        if path is not None:
            try:
                if not stat.S_ISREG(os.stat(path).st_mode):
                    raise OSError("not a regular file")
                with open(path, "rb") as f:
                    surely = defines_op(f.read(MAX_SOURCE_BYTES).decode("utf-8", "replace"), ns, name)
            except OSError:
                path = None
        found.append({"module": module, "found": path is not None, "defines": surely})
    named = {m["module"] for m in found}
    # a module the program points to defines it: no library needs reading
    for package in packages if all(m["defines"] < 2 for m in found) else []:
        need(isinstance(package, str) and len(package) <= 200 and MODULE_NAME.fullmatch(package),
             "%r is not a package name", package)
        for surely, module in scan_package(package, ns, name)[:8]:
            if module not in named:
                named.add(module)
                found.append({"module": module, "found": True, "defines": surely})
    return {"ok": True, "modules": found}


def do_call(host, request, scratch):
    op = find_op(host, request.get("op"), request.get("overload", "default"))
    args = decode_list(request.get("args", []), "args", scratch)
    raw_kwargs = request.get("kwargs", {})
    need(isinstance(raw_kwargs, dict), "kwargs must be an object")
    kwargs = {k: decode(v, scratch) for k, v in raw_kwargs.items()}
    with torch.no_grad():
        result = op(*args, **kwargs)
    # One value per schema return.  ScalarType, Layout and MemoryFormat
    # returns come back from the dispatcher as their c10 enum ints and go on
    # as ints: the schema's (erased) return type is int.
    count = len(op._schema.returns)
    if count == 0:
        outputs = []
    elif count == 1:
        outputs = [encode(result, scratch)]
    else:
        outputs = [encode(r, scratch) for r in result]
    return {"ok": True, "outputs": outputs}


def do_execute(host, request, scratch):
    need(host.registry is not None, "pytorch-ir (torch_ir) is not available in this Python")
    name = request.get("name")
    fn = host.registry.get(name) if isinstance(name, str) else None
    need(fn is not None, "no executor registered as %r", name)
    inputs = decode_list(request.get("inputs", []), "inputs", scratch)
    attrs = request.get("attrs", {})
    need(isinstance(attrs, dict), "attrs must be an object")
    # pytorch-ir calls executors as fn(inputs, attrs) -> list of tensors.
    with torch.no_grad():
        result = fn(inputs, attrs)
    if isinstance(result, torch.Tensor):
        result = [result]
    need(isinstance(result, (list, tuple)), "executor %r returned %s, not a list of "
         "tensors", name, type(result).__qualname__)
    return {"ok": True, "outputs": [encode(r, scratch) for r in result]}


HANDLERS = {
    "ping": lambda host, request, scratch: {"ok": True},
    "schema": do_schema,
    "locate": do_locate,
    "call": do_call,
    "execute": do_execute,
}


def handle(host, body, fd_count, truncated, scratch):
    """The reply body for one request; any failure becomes an error reply."""
    try:
        host.busy = True
        try:
            need(not truncated, "the request carried more than %d fds", MAX_FDS)
            need(fd_count == len(scratch.fds), "the header announces %d fds but %d "
                 "arrived", fd_count, len(scratch.fds))
            request = json.loads(body)
            need(isinstance(request, dict), "a request must be a JSON object")
            free = request.get("arena_free", 0)
            need(is_int(free) and free >= 0, "arena_free must be a non-negative integer")
            # the arena is shared: without room named for outputs, they take memfds
            scratch.arena_next = free if "arena_free" in request else (ARENA.numel() if ARENA is not None else 0)
            forget_buffers(request)
            take_spares(request, scratch)
            # ops run on as many threads as the caller's own ops, for the same bits
            threads = request.get("threads")
            if is_int(threads) and 1 <= threads <= 4096 and threads != host.threads:
                torch.set_num_threads(threads)
                host.threads = threads
            handler = HANDLERS.get(request.get("type"))
            need(handler is not None, "unknown request type %r", request.get("type"))
            return dumps(handler(host, request, scratch))
        finally:
            host.busy = False
    except BaseException as e:  # KeyboardInterrupt too: it cancels one op
        scratch.release_outputs()
        reply = {"ok": False, "error": describe(e), "traceback": user_traceback(e)}
        # The traceback's frames hold the op's locals, our input tensors
        # among them, sometimes in cycles only GC would break; drop them now
        # so the mappings go with the request.
        traceback.clear_frames(e.__traceback__)
        return dumps(reply)


def user_traceback(exc):
    """The traceback from the first frame that is not the host's own (its code is "<string>"):
    what the user would see had they called the op themselves."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None and tb.tb_frame.f_code.co_filename == "<string>":
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(exc), exc, tb))


# How long the host polls for the next request before it sleeps in recvmsg: calls of a program's
# ops come in bursts, and a process put to sleep and woken costs each call tens of microseconds.
SPIN_SECONDS = 300e-6


def wait_briefly(ready):
    end = time.perf_counter() + SPIN_SECONDS
    while time.perf_counter() < end:
        if ready.poll(0):
            return


def exit_with_parent():
    """Ends this process when the program that started it has gone, even in the middle of an op
    (a closed socket is only noticed between requests)."""
    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="torchir-parent-watch", daemon=True).start()


def serve(host):
    sock = host.sock
    ready = select.poll()
    ready.register(sock, select.POLLIN)
    while True:
        wait_briefly(ready)
        header = read_header(sock)
        if header is None:
            return
        length, fd_count, fds, truncated = header
        scratch = Scratch(fds)
        try:
            if length > MAX_BODY:
                # The body cannot be skipped safely; say why and stop.
                send_message(sock, dumps({"ok": False, "error": "ValueError: request "
                             "body of %d bytes exceeds 256 MiB" % length}), [])
                raise SystemExit("torchir host: request body of %d bytes exceeds "
                                 "256 MiB" % length)
            body = read_body(sock, length)
            reply = handle(host, body, fd_count, truncated, scratch)
            send_message(sock, reply, scratch.out_fds)
        finally:
            scratch.release()


# ---------------------------------------------------------------- start-up

def parse_args(argv):
    if not argv:
        raise UsageError("missing SOCKFD")
    try:
        sockfd = int(argv[0])
    except ValueError:
        raise UsageError("SOCKFD must be an integer, got %r" % argv[0]) from None
    options = {"threads": None, "imports": [], "executors": [], "arena": None}
    rest = argv[1:]
    while rest:
        flag = rest.pop(0)
        if flag not in ("--threads", "--import", "--executors", "--arena") or not rest:
            raise UsageError("unexpected argument %r" % flag)
        value = rest.pop(0)
        if flag == "--threads":
            if not value.isdigit() or int(value) < 1:
                raise UsageError("--threads needs a positive integer, got %r" % value)
            options["threads"] = int(value)
        elif flag == "--arena":
            fd, _, size = value.partition(":")
            if not (fd.isdigit() and size.isdigit()):
                raise UsageError("--arena needs FD:BYTES, got %r" % value)
            options["arena"] = (int(fd), int(size))
        elif flag == "--import":
            options["imports"].append(value)
        else:
            options["executors"].append(value)
    return sockfd, options


def import_failure(name, exc):
    return {"module": name, "error": describe(exc), "traceback": traceback.format_exc()}


def load_executor_file(path, index):
    path = os.path.abspath(path)
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)  # so the file can import its neighbours
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    module_name = "_torchir_executors_%d_%s" % (index, stem)
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError("cannot load %s as a Python module" % path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses, pickling etc. look it up
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise


def load_registry(errors):
    """torch_ir's executor registry, or None when pytorch-ir is absent."""
    try:
        import torch_ir  # noqa: F401  (registers pytorch-ir's own executors)
        from torch_ir.ops.registry import _EXECUTION_REGISTRY
    except ModuleNotFoundError as e:
        if e.name not in ("torch_ir", "torch_ir.ops", "torch_ir.ops.registry"):
            errors.append(import_failure("torch_ir", e))
        return None
    except Exception as e:
        errors.append(import_failure("torch_ir", e))
        return None
    return _EXECUTION_REGISTRY


def load_user_code(options, errors):
    for name in options["imports"]:
        try:
            importlib.import_module(name)
        except BaseException as e:
            errors.append(import_failure(name, e))
    for index, path in enumerate(options["executors"]):
        try:
            load_executor_file(path, index)
        except BaseException as e:
            errors.append(import_failure(path, e))


def ready_message(torch_version, torch_error, errors, executors):
    return {"type": "ready", "python": platform.python_version(),
            "executable": sys.executable, "torch": torch_version,
            "torch_error": torch_error, "import_errors": errors,
            "executors": executors}


def main():
    # Ops that print must not disturb anything: stdout is not the protocol,
    # but it may be the C++ program's own output (a CLI printing JSON), so
    # send Python's prints and, through fd 1, native code's to stderr.
    sys.stdout = sys.stderr
    try:
        os.dup2(2, 1)
    except OSError:
        pass  # no usable stderr: leave fd 1 as it is
    try:
        sockfd, options = parse_args(sys.argv[1:])
    except UsageError as e:
        sys.stderr.write("torchir host: %s\n" % e)
        sys.exit(2)
    exit_with_parent()
    sock = socket.socket(fileno=sockfd)
    sock.setblocking(True)
    # A process an op starts must not keep the socket open after we die.
    os.set_inheritable(sockfd, False)
    host = Host(sock)

    # Ctrl+C in the terminal reaches the whole process group: while idle the
    # C++ side decides (closing the socket ends us); during a request it
    # interrupts the op, which then replies with an error.
    def on_sigint(signum, frame):
        if host.busy:
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_sigint)

    try:
        cwd = os.getcwd()
    except OSError:
        cwd = None  # the directory is gone: nothing to find there
    if cwd is not None and cwd not in sys.path:
        sys.path.append(cwd)

    global torch
    try:
        import torch as torch_module
    except Exception as e:
        send_message(sock, dumps(ready_message(None, one_line(describe(e)), [], [])), [])
        sys.exit(0)
    torch = torch_module
    if options["arena"] is not None:
        fd, size = options["arena"]
        mm = mmap.mmap(fd, size)
        os.close(fd)  # the mapping stays; the descriptor is not needed
        global ARENA
        ARENA = torch.frombuffer(mm, dtype=torch.uint8, count=size)
    if options["threads"] is not None:
        torch.set_num_threads(options["threads"])
        host.threads = options["threads"]

    errors = []
    host.registry = load_registry(errors)
    # pytorch-ir registers its own executors on import; only the user's count.
    before = dict(host.registry) if host.registry is not None else {}
    load_user_code(options, errors)
    executors = []
    if host.registry is not None:
        executors = sorted((k for k, f in host.registry.items() if before.get(k) is not f),
                           key=str)
    send_message(sock, dumps(ready_message(torch.__version__, None, errors, executors)), [])
    try:
        serve(host)
    except (EOFError, ConnectionError) as e:
        # The C++ side went away mid-message; nobody is left to answer.
        sys.stderr.write("torchir host: %s\n" % describe(e))
        sys.exit(1)
    sys.exit(0)


if __name__ == "__main__":
    main()
