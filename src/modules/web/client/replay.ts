import { lineChartSvg, shortId } from "../view-kit";
import { applyEvent, newHand, type TableEvent, type TableState } from "./table-state";
import { drawTable } from "./table-view";

interface StoredHand {
  handNumber: number;
  button: number;
  players: Array<{ seat: number; botId: string; startingStack: number; finalStack: number }>;
  events: TableEvent[];
}

const data = JSON.parse(document.getElementById("page-data")!.textContent!) as { matchId: string; maxPlayers: number; buyIn: number; names: Record<string, string>; startHand: number | null };
const $ = (id: string) => document.getElementById(id)!;

/** Every page of the match's public hand histories, following the Link header. */
async function loadHands(): Promise<StoredHand[]> {
  const hands: StoredHand[] = [];
  let url: string | null = `/api/matches/${encodeURIComponent(data.matchId)}/hands?limit=1000`;
  while (url) {
    const response: Response = await fetch(url);
    if (!response.ok) throw new Error(`hand histories: HTTP ${response.status}`);
    hands.push(...((await response.json()) as { hands: StoredHand[] }).hands);
    url = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get("link") ?? "")?.[1] ?? null;
  }
  return hands;
}

function framesOf(hand: StoredHand): TableState[] {
  const frames = [newHand(hand.handNumber, hand.button, hand.players.map((p) => ({ seat: p.seat, botId: p.botId, stack: p.startingStack })))];
  for (const event of hand.events) frames.push(applyEvent(frames[frames.length - 1], event));
  return frames;
}

function chipsChart(hands: StoredHand[]): string {
  const bots = [...new Set(hands.flatMap((h) => h.players.map((p) => p.botId)))];
  const series = bots.map((botId) => {
    let last = data.buyIn;
    const points = [last];
    for (const hand of hands) {
      const player = hand.players.find((p) => p.botId === botId);
      if (player) last = player.finalStack;
      points.push(last);
    }
    return { label: data.names[botId] ?? shortId(botId), points };
  });
  return lineChartSvg(series, { title: "Chips after each hand", yLabel: "chips", xLabel: "hand number", xLabels: ["start", ...hands.map((h) => String(h.handNumber))] });
}

let hands: StoredHand[] = [];
let handIndex = 0;
let step = 0;
let frames: TableState[] = [];
let timer: ReturnType<typeof setInterval> | undefined;

function show(): void {
  const state = frames[step];
  drawTable($("table"), state, data.maxPlayers, data.names);
  $("position").textContent = `hand ${hands[handIndex].handNumber} of ${hands.length} · step ${step} of ${frames.length - 1}`;
  $("note").textContent = state.note || "cards are dealt";
  $("viewer").dataset.hand = String(hands[handIndex].handNumber);
  $("viewer").dataset.step = String(step);
  shareHand(hands[handIndex].handNumber);
}

/** The shown hand's own page: the link (to copy) follows the replay; on a hand's page, so does the address bar. */
function shareHand(handNumber: number): void {
  const path = `/matches/${encodeURIComponent(data.matchId)}/hands/${handNumber}`;
  const link = $("hand-link") as HTMLAnchorElement;
  if (link.getAttribute("href") === path) return;
  link.href = path;
  link.textContent = `${location.origin}${path}`;
  $("copy-link").textContent = "Copy link";
  if (data.startHand !== null) history.replaceState(null, "", path);
}

$("copy-link").addEventListener("click", () => {
  const url = `${location.origin}${$("hand-link").getAttribute("href")}`;
  void navigator.clipboard?.writeText(url).then(
    () => ($("copy-link").textContent = "Copied"),
    () => ($("copy-link").textContent = "Select the link to copy it"),
  );
});

function goHand(index: number, atEnd = false): void {
  handIndex = Math.max(0, Math.min(hands.length - 1, index));
  frames = framesOf(hands[handIndex]);
  step = atEnd ? frames.length - 1 : 0;
  show();
}

function goStep(delta: number): void {
  const next = step + delta;
  if (next < 0 && handIndex > 0) return goHand(handIndex - 1, true);
  if (next >= frames.length && handIndex < hands.length - 1) return goHand(handIndex + 1);
  step = Math.max(0, Math.min(frames.length - 1, next));
  show();
}

function togglePlay(): void {
  if (timer) {
    clearInterval(timer);
    timer = undefined;
  } else timer = setInterval(() => (handIndex === hands.length - 1 && step === frames.length - 1 ? togglePlay() : goStep(1)), 600);
  $("play").textContent = timer ? "Pause" : "Play";
  $("play").setAttribute("aria-pressed", String(Boolean(timer)));
}

function nextShowdown(): void {
  for (let i = handIndex + 1; i < hands.length; i++) {
    if (hands[i].events.some((e) => e.type === "show")) return goHand(i, true);
  }
}

const actions: Record<string, () => void> = {
  "prev-hand": () => goHand(handIndex - 1),
  "prev-step": () => goStep(-1),
  play: togglePlay,
  "next-step": () => goStep(1),
  "next-hand": () => goHand(handIndex + 1),
  "next-showdown": nextShowdown,
};
for (const [id, act] of Object.entries(actions)) $(id).addEventListener("click", act);
document.addEventListener("keydown", (event) => {
  const keys: Record<string, string> = { ArrowLeft: "prev-step", ArrowRight: "next-step", ArrowUp: "prev-hand", ArrowDown: "next-hand", " ": "play" };
  const id = keys[event.key];
  if (!id || (event.target as HTMLElement).tagName === "INPUT") return;
  event.preventDefault();
  actions[id]();
});

loadHands().then(
  (loaded) => {
    hands = loaded;
    if (hands.length === 0) {
      $("note").textContent = "This match has no hands.";
      return;
    }
    $("chart").innerHTML = chipsChart(hands);
    const start = data.startHand === null ? 0 : hands.findIndex((h) => h.handNumber === data.startHand);
    goHand(Math.max(0, start));
    if (start < 0) $("note").textContent = `Hand ${data.startHand} is not among this match's recorded hands: showing hand ${hands[0].handNumber}.`;
    $("viewer").dataset.ready = "true";
  },
  (error: Error) => ($("note").textContent = `Could not load the hand histories: ${error.message}`),
);
