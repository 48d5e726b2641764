# Writes test inputs into argv[1] and prints the idx-check spec for them.
import gzip, hashlib, os, random, struct, sys

d = sys.argv[1]
IO, FORMAT = 8, 9
FM = "/usr/share/datasets/fashion-mnist"

def put(name, data):
    path = os.path.join(d, name)
    with open(path, "wb") as f:
        f.write(data)
    return path

def idx(code, dims, payload):
    return bytes([0, 0, code, len(dims)]) + b"".join(struct.pack(">I", n) for n in dims) + payload

def ok(path, code, dims, host_bytes, extra=""):
    print("ok", path, hex(code), ",".join(map(str, dims)),
          hashlib.sha256(host_bytes).hexdigest(), extra)

def err(path, code):
    print("err", path, code)

# The four Fashion-MNIST files, reference decoded by Python's gzip module.
for split, n in (("train", 60000), ("t10k", 10000)):
    for kind, dims in (("images-idx3", (n, 28, 28)), ("labels-idx1", (n,))):
        path = f"{FM}/{split}-{kind}-ubyte.gz"
        raw = gzip.open(path).read()
        hdr = 4 + 4 * len(dims)
        assert raw[:4] == bytes([0, 0, 8, len(dims)])
        ok(path, 8, dims, raw[hdr:], "labels" if kind.startswith("labels") else "")
        if kind.startswith("labels"):
            print("#", split, "first labels", list(raw[hdr:hdr + 10]), file=sys.stderr)
t10k_labels = gzip.open(f"{FM}/t10k-labels-idx1-ubyte.gz").read()
ok(put("t10k-labels.raw", t10k_labels), 8, (10000,), t10k_labels[8:], "labels")
print("cancel", f"{FM}/t10k-labels-idx1-ubyte.gz")

# Every type, raw and gzip, values exercising the byte swap.
rng = random.Random(1234)
for code, fmt, dims in ((0x08, "B", (3, 5)), (0x09, "b", (2, 3, 4)), (0x0B, "h", (7,)),
                        (0x0C, "i", (2, 2, 3, 5)), (0x0D, "f", (4, 6)), (0x0E, "d", (3, 3))):
    n = 1
    for k in dims:
        n *= k
    if fmt in "fd":
        vals = [rng.uniform(-1e6, 1e6) for _ in range(n)]
    else:
        bits = struct.calcsize(fmt) * 8
        lo, hi = (0, 2 ** bits - 1) if fmt == "B" else (-2 ** (bits - 1), 2 ** (bits - 1) - 1)
        vals = [rng.randint(lo, hi) for _ in range(n)]
    data = idx(code, dims, struct.pack(">%d%s" % (n, fmt), *vals))
    host = struct.pack("=%d%s" % (n, fmt), *vals)
    ok(put(f"type{code:02x}.idx", data), code, dims, host)
    ok(put(f"type{code:02x}.idx.gz", gzip.compress(data)), code, dims, host)
ok(put("empty-dim.idx.gz", gzip.compress(idx(0x0D, (0, 5), b""))), 0x0D, (0, 5), b"")

# Bad inputs.
good = idx(8, (4, 3), bytes(range(12)))
gz_labels = open(f"{FM}/t10k-labels-idx1-ubyte.gz", "rb").read()
err(os.path.join(d, "does-not-exist.gz"), IO)
err(d, IO)                                                        # a directory
err(put("empty", b""), FORMAT)
err(put("empty.gz", gzip.compress(b"")), FORMAT)
err(put("bad-magic", b"\x01\x02\x08\x01" + good[4:]), FORMAT)
err(put("bad-magic.gz", gzip.compress(b"PK\x03\x04" + good[4:])), FORMAT)
err(put("bad-type", idx(0x0A, (4, 3), bytes(12))), FORMAT)
err(put("zero-dims", bytes([0, 0, 8, 0, 7])), FORMAT)
err(put("five-dims", idx(8, (1, 1, 1, 1, 1), b"x")), FORMAT)
err(put("short-magic", b"\x00\x00\x08"), FORMAT)
err(put("short-sizes.gz", gzip.compress(good[:9])), FORMAT)
err(put("truncated.gz", gz_labels[: len(gz_labels) // 2]), FORMAT)
err(put("no-trailer.gz", gz_labels[:-8]), FORMAT)
bad_crc = bytearray(gz_labels); bad_crc[-6] ^= 0xFF
err(put("bad-crc.gz", bytes(bad_crc)), FORMAT)
mid = bytearray(gz_labels); mid[len(mid) // 2] ^= 0x55; mid[len(mid) // 2 + 1] ^= 0xAA
err(put("corrupt-middle.gz", bytes(mid)), FORMAT)
err(put("promises-more.gz", gzip.compress(b"\x00\x00\x08\x01" + struct.pack(">I", 10001) + t10k_labels[8:])), FORMAT)
err(put("promises-more.raw", idx(0x0C, (4, 3), bytes(47))), FORMAT)
err(put("trailing.raw", good + b"\x00"), FORMAT)
err(put("trailing.gz", gzip.compress(good + b"junk")), FORMAT)
# Bytes after the end of the gzip stream are ignored (as gzip(1) does):
# GConverterInputStream stops at the end of the first gzip member.
ok(put("garbage-after-gz", gzip.compress(good) + b"\x00junk"), 8, (4, 3), good[12:])
err(put("random", bytes(rng.getrandbits(8) for _ in range(4096))), FORMAT)
err(put("random-after-gz-magic", b"\x1f\x8b" + bytes(rng.getrandbits(8) for _ in range(4096))), FORMAT)
err(put("overflow", idx(0x0E, (0xFFFFFFFF,) * 4, b"")), FORMAT)
err(put("overflow-ssize", idx(0x08, (0xFFFFFFFF, 0xFFFFFFFF), b"")), FORMAT)
err(put("huge.gz", gzip.compress(idx(0x08, (65536, 65536, 1024), bytes(1000)))), FORMAT)
