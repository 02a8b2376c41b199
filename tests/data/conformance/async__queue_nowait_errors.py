import asyncio
q = asyncio.Queue(maxsize=1)
q.put_nowait(1)
errs = []
try:
    q.put_nowait(2)
except asyncio.QueueFull:
    errs.append("full")
q.get_nowait()
try:
    q.get_nowait()
except asyncio.QueueEmpty:
    errs.append("empty")
try:
    q.task_done()
    q.task_done()
except ValueError as e:
    errs.append(str(e))
(errs, q.full(), q.maxsize)
