import asyncio
log = []
async def producer(q, n):
    for i in range(n):
        await q.put(i)
        log.append(f"put {i}")
    await q.put(None)
async def consumer(q):
    total = 0
    while True:
        item = await q.get()
        q.task_done()
        if item is None:
            break
        log.append(f"got {item}")
        total += item
    return total
async def main():
    q = asyncio.Queue(maxsize=2)
    prod = asyncio.create_task(producer(q, 5))
    total = await consumer(q)
    await prod
    await q.join()
    return total, q.empty(), q.qsize()
r = asyncio.run(main())
(r, log)
