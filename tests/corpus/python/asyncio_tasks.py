# asyncio as agent code uses it: gather, wait_for with a timeout, a queue
# between a producer and a consumer, tasks cancelled, an async generator.
# Time is virtual inside the sandbox, so only the order of events is printed.
import asyncio


async def work(name, delay, log):
    await asyncio.sleep(delay)
    log.append(name)
    return name.upper()


async def numbers(n):
    for i in range(n):
        await asyncio.sleep(0)
        yield i * i


async def main():
    log = []
    results = await asyncio.gather(work("slow", 0.3, log), work("fast", 0.1, log),
                                   work("mid", 0.2, log))
    print(results, log)

    queue = asyncio.Queue(maxsize=2)

    async def produce():
        for i in range(5):
            await queue.put(i)
        await queue.put(None)

    async def consume():
        got = []
        while (item := await queue.get()) is not None:
            got.append(item)
        return got

    print(await asyncio.gather(produce(), consume()))

    try:
        await asyncio.wait_for(asyncio.sleep(10), timeout=0.5)
    except asyncio.TimeoutError:
        print("timed out")

    task = asyncio.create_task(asyncio.sleep(5))
    await asyncio.sleep(0)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        print("cancelled", task.cancelled())

    print([x async for x in numbers(5)])
    done, pending = await asyncio.wait([asyncio.create_task(work(n, d, log))
                                        for n, d in (("a", 0.2), ("b", 0.1))],
                                       return_when=asyncio.FIRST_COMPLETED)
    print(sorted(t.result() for t in done), len(pending))
    for t in pending:
        await t
    print(log)


asyncio.run(main())
