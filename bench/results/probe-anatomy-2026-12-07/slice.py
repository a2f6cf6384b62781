# Experiment (sixty-second session): sched_getattr/sched_setattr (x86-64 315/314) of a thread: slice.py TID SLICE_NS.
import ctypes, os, sys
class Attr(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint32), ("policy", ctypes.c_uint32), ("flags", ctypes.c_uint64), ("nice", ctypes.c_int32),
                ("prio", ctypes.c_uint32), ("runtime", ctypes.c_uint64), ("deadline", ctypes.c_uint64), ("period", ctypes.c_uint64),
                ("umin", ctypes.c_uint32), ("umax", ctypes.c_uint32)]
libc = ctypes.CDLL(None, use_errno=True)
tid = int(sys.argv[1]); ns = int(sys.argv[2])
a = Attr(); 
r = libc.syscall(315, tid, ctypes.byref(a), ctypes.sizeof(Attr), 0)  # sched_getattr
print("get", r, ctypes.get_errno(), "policy", a.policy, "nice", a.nice, "runtime", a.runtime)
b = Attr(size=ctypes.sizeof(Attr), policy=0, flags=0, nice=a.nice, runtime=ns)
r = libc.syscall(314, tid, ctypes.byref(b), 0)  # sched_setattr
print("set", r, os.strerror(ctypes.get_errno()))
a = Attr()
libc.syscall(315, tid, ctypes.byref(a), ctypes.sizeof(Attr), 0)
print("after", "policy", a.policy, "nice", a.nice, "runtime", a.runtime)
