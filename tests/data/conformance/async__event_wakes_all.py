import asyncio
log = []
async def waiter(name, ev):
    log.append(f"{name} waiting")
    await ev.wait()
    log.append(f"{name} woke")
async def main():
    ev = asyncio.Event()
    tasks = [asyncio.create_task(waiter(n, ev)) for n in "xyz"]
    await asyncio.sleep(0.01)
    log.append(f"set? {ev.is_set()}")
    ev.set()
    await asyncio.gather(*tasks)
    ev.clear()
    return ev.is_set()
(asyncio.run(main()), log)
