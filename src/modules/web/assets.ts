import { join } from "node:path";

const CLIENT_SCRIPTS = ["replay", "live", "owner", "tv"] as const;
export type ClientScript = (typeof CLIENT_SCRIPTS)[number];

let bundles: Promise<Map<string, string>> | undefined;

/**
 * The pages' scripts, bundled by Bun from client/*.ts on first use and kept in memory: no build
 * step for a newcomer to remember, nothing fetched from elsewhere.
 */
export function clientScript(name: string): Promise<string | undefined> {
  bundles ??= Bun.build({
    entrypoints: CLIENT_SCRIPTS.map((script) => join(import.meta.dir, "client", `${script}.ts`)),
    target: "browser",
    minify: true,
  }).then(async (result) => {
    if (!result.success) throw new AggregateError(result.logs, "bundling the web pages' scripts failed");
    const byName = new Map<string, string>();
    for (const output of result.outputs) byName.set(output.path.split("/").pop()!.replace(/\.js$/, ""), await output.text());
    return byName;
  });
  return bundles.then((byName) => byName.get(name));
}

export const STYLESHEET = `
:root { --felt: #1d6b3a; --ink: #1b1b1b; --muted: #5d6470; --line: #d9dde3; --accent: #0b57d0; color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #f6f7f9; }
header.site { display: flex; flex-wrap: wrap; gap: .5rem 1.25rem; align-items: center; padding: .75rem 1rem; background: #fff; border-bottom: 1px solid var(--line); }
header.site a { color: var(--ink); text-decoration: none; font-weight: 600; }
header.site nav { display: flex; gap: 1rem; flex-wrap: wrap; }
main { max-width: 1100px; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.5rem; margin: .5rem 0 1rem; } h1 .muted { display: block; font-size: .85rem; font-weight: 400; overflow-wrap: anywhere; }
p { overflow-wrap: anywhere; } h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; }
a { color: var(--accent); }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem; margin-bottom: 1rem; overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); white-space: nowrap; }
td.num, th.num { text-align: right; }
.muted { color: var(--muted); }
.badge { display: inline-block; padding: 0 .4rem; border-radius: 4px; font-size: .8rem; background: #e8eefc; color: #123c8c; }
.badge.running { background: #e3f5e8; color: #14532d; }
dl.stats { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: .5rem 1rem; margin: 0; }
dl.stats div { padding: .4rem .6rem; border: 1px solid var(--line); border-radius: 6px; }
dl.stats dt { font-size: .8rem; color: var(--muted); } dl.stats dd { margin: 0; font-size: 1.15rem; font-variant-numeric: tabular-nums; }
.cards { display: inline-flex; gap: 3px; vertical-align: middle; }
.card { display: inline-flex; align-items: center; justify-content: center; min-width: 2.1em; height: 2.9em; padding: 0 .2em; border-radius: 5px; background: #fff; border: 1px solid #9aa3ad; font-weight: 700; font-size: .95rem; }
.card .suit { margin-left: 1px; }
.card.spades { color: #111; } .card.hearts { color: #c1121f; } .card.diamonds { color: #1d4ed8; } .card.clubs { color: #15803d; }
.card.back { background: repeating-linear-gradient(45deg, #2b4c7e, #2b4c7e 4px, #3d6aa8 4px, #3d6aa8 8px); border-color: #23406a; }
.felt { position: relative; width: 100%; max-width: 760px; aspect-ratio: 16 / 10; margin: 1.5rem auto 2.5rem; background: radial-gradient(ellipse at center, #2c8a4d 0%, var(--felt) 70%); border: 10px solid #6b4423; border-radius: 50%; }
.middle { position: absolute; inset: 32% 20%; display: flex; flex-direction: column; align-items: center; justify-content: center; gap: .3rem; color: #fff; text-align: center; }
.pots { font-size: .8rem; }
ul.seats { list-style: none; margin: 0; padding: 0; }
.seat { position: absolute; transform: translate(-50%, -50%); min-width: 7.5rem; max-width: 11rem; padding: .3rem .45rem; border-radius: 8px; background: #fff; border: 2px solid #c7ccd3; font-size: .8rem; text-align: center; display: flex; flex-direction: column; align-items: center; gap: 2px; }
.seat.folded { opacity: .55; } .seat.winner { border-color: #d4a017; box-shadow: 0 0 0 3px #f6e3a1; }
.seat .stack { font-weight: 700; font-variant-numeric: tabular-nums; } .seat .bet { color: #0f5132; min-height: 1em; } .seat .last { color: var(--muted); min-height: 1em; }
abbr.button { text-decoration: none; display: inline-block; width: 1.3em; height: 1.3em; line-height: 1.3em; border-radius: 50%; background: #fff; border: 1px solid #333; font-size: .7rem; }
.controls { display: flex; flex-wrap: wrap; gap: .4rem; justify-content: center; margin: .5rem 0; }
button { font: inherit; padding: .35rem .7rem; border-radius: 6px; border: 1px solid #9aa3ad; background: #fff; cursor: pointer; }
button:focus-visible, a:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
#note, #position, #hand, #status { text-align: center; margin: .25rem 0; }
ol#log { font-size: .85rem; max-height: 16rem; overflow-y: auto; }
figure.chart { margin: 0; } figure.chart > svg { width: 100%; height: auto; font-size: 14px; } ul.legend svg { flex: none; width: 28px; height: 8px; }
figure.chart .frame { fill: none; stroke: var(--line); } figure.chart .zero { stroke: #888; stroke-dasharray: 2 2; } figure.chart .grid { stroke: #eef0f3; } figure.chart .axis { stroke: #888; }
figure.chart .band { fill-opacity: .18; stroke: none; } figure.chart .tick { fill: var(--muted); } figure.chart .axis-label { fill: var(--ink); font-weight: 600; }
svg.interval { vertical-align: middle; } svg.interval .axis { stroke: var(--line); } svg.interval .span { fill: #bcd0f5; stroke: var(--accent); } svg.interval .mid { stroke: var(--ink); stroke-width: 2; }
tr.provisional td { color: var(--muted); } .badge.provisional { background: #fff4d6; color: #6b4d00; } .badge.ladder { background: #efe6fb; color: #4c1d95; } .badge.paused { background: #fde8e8; color: #8a1c1c; }
.badge.house { background: #e6f4ea; color: #14532d; } .badge.left { background: #eceff3; color: #3f4650; } .badge.waiting { background: #fff4d6; color: #6b4d00; }
table.crosstable td { text-align: right; } .heat-win-1 { background: #e3f4e6; } .heat-win-2 { background: #c4e8cb; } .heat-win-3 { background: #9fd8aa; } .heat-win-4 { background: #72c484; } .heat-win-5 { background: #46a85c; color: #fff; }
.heat-loss-1 { background: #fbe4e3; } .heat-loss-2 { background: #f5c6c4; } .heat-loss-3 { background: #eea09c; } .heat-loss-4 { background: #e47570; } .heat-loss-5 { background: #cf4a44; color: #fff; }
table.standings td.bot { white-space: normal; min-width: 10rem; } table.standings td.num .muted { display: block; font-size: .8rem; white-space: nowrap; }
ul.legend li { display: flex; align-items: center; gap: .35rem; white-space: nowrap; max-width: 100%; min-width: 0; } ul.legend li span { overflow: hidden; text-overflow: ellipsis; }
ul.legend { list-style: none; display: flex; flex-wrap: wrap; gap: .25rem 1rem; padding: 0; margin: .25rem 0 0; font-size: .85rem; }
.alert { background: #fde8e8; color: #8a1c1c; border: 1px solid #f3b4b4; border-radius: 6px; padding: .5rem .75rem; } .alert pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: .25rem 0 0; font-size: .8rem; }
.notice { background: #e3f5e8; color: #14532d; border-radius: 6px; padding: .5rem .75rem; }
form.stacked { display: flex; flex-direction: column; gap: .5rem; max-width: 26rem; } form.stacked label { display: flex; flex-direction: column; gap: .15rem; font-size: .9rem; }
form.signout { margin: 0 0 1rem; } input { font: inherit; padding: .35rem .5rem; border: 1px solid #9aa3ad; border-radius: 6px; max-width: 100%; } form.inline { display: inline; }
ul.plain { list-style: none; margin: 0; padding: 0; } td.wrap { white-space: normal; min-width: 14rem; } p.balance { font-size: 1.6rem; margin: .25rem 0; font-variant-numeric: tabular-nums; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 420px), 1fr)); gap: 0 1rem; }
@media (max-width: 560px) {
  main { padding: .5rem; } .seat { min-width: 5.2rem; font-size: .7rem; padding: .2rem; } .card { min-width: 1.6em; height: 2.3em; font-size: .75rem; }
  .felt { aspect-ratio: 3 / 4; border-width: 6px; border-radius: 45%; } .middle { inset: 35% 12%; }
}
`;
