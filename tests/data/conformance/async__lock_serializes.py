import asyncio
log = []
async def worker(name, lock):
    async with lock:
        log.append(f"{name} in")
        await asyncio.sleep(0)
        log.append(f"{name} out")
async def main():
    lock = asyncio.Lock()
    await asyncio.gather(worker("a", lock), worker("b", lock), worker("c", lock))
    await lock.acquire()
    held = lock.locked()
    lock.release()
    try:
        lock.release()
    except RuntimeError as e:
        log.append(str(e))
    return held, lock.locked()
(asyncio.run(main()), log)
