/**
 * A separate load process (loopback only, bounded): `bun bench/load.ts <url> <clients> <total>`
 * GETs the url `total` times from `clients` concurrent loops, then prints {"requestsPerSec": N}.
 */
import { load } from "./support";

const [url, clients = "64", total = "20000"] = process.argv.slice(2);
if (!url || !/^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(url)) throw new Error("a loopback URL is required");
let failures = 0;
const requestsPerSec = await load(Number(clients), Number(total), async () => {
  const response = await fetch(url);
  await response.arrayBuffer();
  if (!response.ok) failures++;
});
console.log(JSON.stringify({ requestsPerSec: Math.round(requestsPerSec), failures }));
