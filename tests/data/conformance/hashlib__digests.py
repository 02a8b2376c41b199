import hashlib
(hashlib.sha256(b"hello").hexdigest(), hashlib.md5("x".encode()).hexdigest(), hashlib.sha1(b"").hexdigest()[:10], len(hashlib.sha512(b"a").digest()))
