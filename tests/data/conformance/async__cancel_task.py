import asyncio
async def forever():
    await asyncio.sleep(10)
async def main():
    t = asyncio.create_task(forever())
    await asyncio.sleep(0)
    t.cancel()
    try:
        await t
    except asyncio.CancelledError:
        return "cancelled", t.cancelled(), t.done()
asyncio.run(main())
