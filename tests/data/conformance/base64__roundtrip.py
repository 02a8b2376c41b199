import base64
enc = base64.b64encode(b"hello world")
(enc, base64.b64decode(enc), base64.urlsafe_b64encode(b"\xfb\xff"), base64.b16encode(b"\x01\xab"), base64.b32encode(b"ab"))
