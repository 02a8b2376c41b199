import asyncio
async def fetch(name, delay):
    await asyncio.sleep(delay)
    return name
async def main():
    out = []
    for fut in asyncio.as_completed([fetch("slow", 0.03), fetch("fast", 0.01), fetch("mid", 0.02)]):
        out.append(await fut)
    return out
asyncio.run(main())
