import asyncio
active = 0
peak = 0
log = []
async def job(i, sem, delay):
    global active, peak
    async with sem:
        active += 1
        peak = max(peak, active)
        log.append(("start", i))
        await asyncio.sleep(delay)
        active -= 1
        log.append(("end", i))
    return i * i
async def main():
    sem = asyncio.Semaphore(2)
    delays = [0.24, 0.06, 0.06, 0.03]
    return await asyncio.gather(*(job(i, sem, d) for i, d in enumerate(delays)))
(asyncio.run(main()), peak, log)
