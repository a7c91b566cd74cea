#!/usr/bin/env python3
"""A starter bot in Python: the whole protocol (docs/PROTOCOL.md) in one file, no SDK.

Needs the `websockets` package (Debian: apt-get install python3-websockets; else pip install websockets).
Locally, against a built-in (the CLI starts the service and sets POKER_SERVER / POKER_API_KEY):
  bun run cli -- play --players "exec:python3 examples/python/starter_bot.py",tight
Against a server:  python3 examples/python/starter_bot.py --key pbk_... [--server http://localhost:3000] [--once]
(or set POKER_API_KEY / POKER_SERVER). Seat it with: bun run cli -- tables join <tableId> --bot <name>
"""
import argparse, asyncio, json, os, sys
from urllib.parse import quote

import websockets

RANKS = "23456789TJQKA"


def decide(req):
    """Pairs and two big cards raise before the flop; afterwards check, or call when it is cheap."""
    legal, to_call, big_blind = req["legalActions"], req["toCall"], req.get("bigBlind", 10)
    (r1, s1), (r2, s2) = req["holeCards"]
    high = max(RANKS.index(r1), RANKS.index(r2))
    strong = r1 == r2 or (high >= RANKS.index("Q") and min(RANKS.index(r1), RANKS.index(r2)) >= RANKS.index("T"))
    if req["street"] == "preflop" and strong and "raise" in legal:
        return {"action": "raise", "amount": max(req["minRaiseTo"], min(req["maxRaiseTo"], 3 * big_blind + to_call))}
    if "check" in legal:
        return {"action": "check"}
    if to_call <= max(2 * big_blind, req["pot"] // 4) or strong:
        return {"action": "call"}
    return {"action": "fold"}


def log(line):
    print(line, file=sys.stderr, flush=True)


async def play(server, key, once):
    url = server.rstrip("/").replace("http", "ws", 1) + "/api/bots/connect?apiKey=" + quote(key)
    big_blind = 10
    async with websockets.connect(url) as ws:
        async for text in ws:
            msg = json.loads(text)
            kind = msg["type"]
            if kind == "welcome":
                log(f"connected as {msg['name']} ({msg['botId']}); waiting for a seat")
            elif kind in ("match_started", "match_resumed", "snapshot"):
                big_blind = msg["config"]["bigBlind"]
                log(f"{kind}: table {msg['tableId']}, match {msg['matchId']}")
            elif kind == "hand_started":
                big_blind = msg["bigBlind"]
            elif kind == "action_request":
                answer = decide({**msg, "bigBlind": big_blind})
                await ws.send(json.dumps({"type": "action", "requestId": msg["requestId"], **answer}))
            elif kind == "error":
                log(f"server says {msg['code']}: {msg['message']}")
            elif kind == "match_ended":
                log(f"match over after {msg['handsPlayed']} hands: " + ", ".join(f"{p['botId']} {p['profit']:+d}" for p in msg["players"]))
                if once:
                    return 0
    return 0


def main():
    parser = argparse.ArgumentParser(description="A starter poker bot (Python).")
    parser.add_argument("--key", default=os.environ.get("POKER_API_KEY"), help="the bot's api key (pbk_...)")
    parser.add_argument("--server", default=os.environ.get("POKER_SERVER", "http://localhost:3000"))
    parser.add_argument("--once", action="store_true", help="exit after the first match")
    args = parser.parse_args()
    if not args.key:
        parser.error("give the bot's api key: --key pbk_... (or POKER_API_KEY)")
    try:
        return asyncio.run(play(args.server, args.key, args.once))
    except (OSError, websockets.exceptions.InvalidStatusCode) as error:
        log(f"cannot connect to {args.server}: {error} (is the service running? is the key right?)")
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
