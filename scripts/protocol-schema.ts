/** Writes docs/protocol.schema.json from @poker-bots/protocol (packages/protocol) (tests/protocol/schema.test.ts keeps it current). */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { protocolSchema } from "@poker-bots/protocol";

const path = join(import.meta.dir, "../docs/protocol.schema.json");
writeFileSync(path, JSON.stringify(protocolSchema(), null, 2) + "\n");
console.log(`wrote ${path}`);
