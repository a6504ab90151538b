// The Burako table in the browser: plain JavaScript, no build step, no outside assets.
// Every move offered comes from the server's list of the engine's legal actions (their ids,
// words and cards); the page never computes a rule or an action id itself. A click, a drag,
// a double-click or a key looks its move up in that list and sends its action id; a
// gesture that matches no legal move is sent as a move on cards, so the engine says why.
"use strict";

const app = document.getElementById("app");
let options = null;      // /api/options: variants, bots, card faces, bot delay
let view = null;         // the table of the game being played or watched
let selected = [];       // positions (in the hand as shown) of the selected cards
let busy = false;        // a request is on its way: clicks wait
let botTimer = null;
let showPile = false;
let message = { text: "", kind: "info" };
let summaryShown = false; // an end-of-hand summary is open: the bots wait
let watch = null;        // {file, game, step, viewer} while watching
let order = [];          // the hand as shown: card ids, in the order the person keeps them
let sortMode = localStorage.getItem("burako-sort") || "suit"; // suit | rank | own
let drawn = [];          // cards just drawn (highlighted until the turn ends)
let turnBase = null;     // the table when the turn of the player to act began
let markBase = null;     // the table when the last player's turn began: newer cards are marked
let skipping = false;    // "skip to my turn": the bots move without pause or animation
let thinkingOn = localStorage.getItem("burako-thinking") === "on";
let drawerOpen = false;  // the moves and scores drawer (small screens)
let autoPlay = null;     // Watch: the auto-play timer

// the pause before each bot move and the length of a move's animation, per speed;
// "normal" waits the server's --bot-delay
const SPEEDS = {
  instant: { delay: 0, anim: 0 },
  fast: { delay: 40, anim: 100 },
  normal: { delay: null, anim: 320 },
  slow: { delay: 1500, anim: 650 },
};
function speedName() { const s = localStorage.getItem("burako-speed"); return SPEEDS[s] ? s : "normal"; }
function botDelay() { const s = SPEEDS[speedName()]; return skipping ? 0 : (s.delay === null ? options.bot_delay_ms : s.delay); }
function animMs() { return skipping ? 0 : SPEEDS[speedName()].anim; }

// ------------------------------------------------------------------ the bot's thinking
// What the server says a bot weighed (burako_env/frontends/thinking.py): the thinking of
// an Expert or Hard bot's move once played (only the moves whose cards the person may
// know are in its hand), the hint (what Expert would play in the person's seat), and in
// Watch a recorded Expert or Hard seat deciding again. The page only draws it.
let pinnedMove = null;   // a log entry's move whose thinking was asked for (null: the latest)
let hintLoading = false; // a hint is on its way
const thinkingCache = new Map(); // "game:move" -> the thinking of a bot move (it never changes)
let thinkingFetch = null; // the URL being fetched for the thinking panel
let seatLinks = null;     // {id, links}: the seats' links of the game just dealt, shown once
//: how often a browser at a table with friends asks for the table while another person acts
const POLL_MS = 1000;

// the move whose thinking the panel shows: the one asked for, else the latest bot move
// that has thinking (the log says which: ``thinking: true``)
function thinkingMove(v) {
  if (pinnedMove !== null) return pinnedMove;
  const log = v.log || [];
  for (let k = log.length - 1; k >= 0; k--) if (log[k].thinking) return log[k].move;
  return null;
}

// where the thinking shown now comes from; null: nothing to ask (the panel says why)
function thinkingUrl(v) {
  if (!v) return null;
  if (watch) {
    if (v.step >= v.steps) return null;
    return "/api/records/thinking?" + new URLSearchParams({ file: watch.file, game: watch.game, step: v.step });
  }
  const move = thinkingMove(v);
  return move === null ? null : "/api/games/" + encodeURIComponent(v.id) + "/thinking?move=" + move;
}

// the hint's URL: on the person's own turn only (the server answers 409 otherwise)
function hintUrl(v) {
  if (!v || watch || v.over || v.to_act !== v.seat || !v.moves.length) return null;
  return "/api/games/" + encodeURIComponent(v.id) + "/hint";
}

const signed = (x, d) => (x >= 0 ? "+" : "") + x.toFixed(d);
const isNum = x => typeof x === "number" && isFinite(x);

// One function draws it all. ``data`` is the thinking JSON of one decision
// ({seat, who, kind: "search" | "policy", choice, summary, candidates, withheld, ...}),
// or Watch's answer ({step, seat, who, played, thinking, why_none}); ``opts``: {title,
// id, note (said when there is nothing to draw), onclose}. Returns the panel.
function renderThinking(data, opts) {
  opts = opts || {};
  const box = h("div", { class: "thinking panel", id: opts.id || "thinking" });
  const head = h("h3", {}, opts.title || "How the bot thinks");
  if (opts.onclose) head.append(h("button", { class: "think-close", title: "close", onclick: opts.onclose }, "✕"));
  box.append(head);
  let t = data;
  if (data && "played" in data && "why_none" in data) { // Watch: the record's seat deciding again
    box.append(h("div", { class: "think-who" }, "P" + data.seat + " (" + data.who + ") to act; the record plays next: " + data.played.text));
    t = data.thinking;
    if (!t) { box.append(h("p", { class: "think-none" }, data.why_none || "no numbers to show")); return box; }
  }
  if (!t) { box.append(h("p", { class: "think-none" }, opts.note || "nothing to show")); return box; }
  if (!t.hint && t === data) box.append(h("div", { class: "think-who" }, "P" + t.seat + " (" + t.who + ")" + (t.move ? ", move " + t.move : "") + ": " + t.choice.text));
  box.append(h("p", { class: "think-summary" }, t.summary));
  const rows = t.candidates || [];
  if (t.kind === "search") {
    const meta = [t.redeals + " re-deals of the cards it cannot see", "it weighs the " + (t.objective === "win" ? "share of hands won" : "mean score margin of its team")];
    box.append(h("div", { class: "think-meta" }, meta.join(" · "),
      t.budget_hit ? h("span", { class: "think-budget" }, " · stopped by its time budget") : null));
    if (rows.length) {
      const lows = rows.map(c => isNum(c.margin_low) ? c.margin_low : c.margin);
      const highs = rows.map(c => isNum(c.margin_high) ? c.margin_high : c.margin);
      const lo = Math.min(0, ...lows), hi = Math.max(0, ...highs);
      const span = hi - lo || 1;
      const pct = x => ((x - lo) / span * 100).toFixed(1) + "%";
      box.append(h("div", { class: "think-rows" }, h("table", { class: "think-table" },
        h("tr", {}, h("th", {}, "move"), h("th", {}, "mean margin, 95% interval (points)"), h("th", {}, "re-deals"), h("th", {}, "won")),
        rows.map(c => {
          const low = isNum(c.margin_low) ? c.margin_low : c.margin, high = isNum(c.margin_high) ? c.margin_high : c.margin;
          return h("tr", { class: "cand" + (c.choice ? " chosen" : ""), "data-action": c.action },
            h("td", { class: "think-move" }, c.text, c.choice ? h("span", { class: "think-mark" }, t.hint ? " ← Expert's pick" : " ← played") : null,
              c.baseline && !c.choice ? h("span", { class: "think-base", title: "the move its rollout policy would play: the search keeps it unless another is clearly better" }, " (its default)") : null),
            h("td", {}, h("div", { class: "think-bar" },
              h("span", { class: "zero", style: "left:" + pct(0) }),
              h("span", { class: "interval", style: "left:" + pct(low) + ";width:calc(" + pct(high) + " - " + pct(low) + ")" }),
              h("span", { class: "mean", style: "left:" + pct(c.margin) })),
              h("span", { class: "think-num" }, signed(c.margin, 1) + (isNum(c.margin_low) ? " [" + c.margin_low.toFixed(1) + ", " + c.margin_high.toFixed(1) + "]" : ""))),
            h("td", { class: "think-redeals" }, String(c.redeals)),
            h("td", { class: "think-win" }, isNum(c.win) ? Math.round(c.win * 100) + "%" : ""));
        }))));
    }
  } else {
    if (rows.length) {
      box.append(h("div", { class: "think-rows" }, h("table", { class: "think-table" },
        h("tr", {}, h("th", {}, "move"), h("th", {}, "probability")),
        rows.map(c => h("tr", { class: "cand" + (c.choice ? " chosen" : ""), "data-action": c.action },
          h("td", { class: "think-move" }, c.text, c.choice ? h("span", { class: "think-mark" }, " ← played") : null),
          h("td", {}, h("div", { class: "think-bar" }, h("span", { class: "prob", style: "width:" + (Math.max(0, Math.min(1, c.probability || 0)) * 100).toFixed(1) + "%" })),
            h("span", { class: "think-num" }, ((c.probability || 0) * 100).toFixed(1) + "%")))))));
    }
    if (isNum(t.value)) box.append(h("div", { class: "think-value" }, "value " + signed(t.value, 2) + ": " + (t.value_text || "")));
  }
  if (t.withheld) box.append(h("p", { class: "think-withheld" }, "Some moves it weighed are not shown: they use cards of its hand you cannot see."));
  return box;
}

// the thinking panel (the toggle "how the bot thinks"): play, after a bot's move; Watch,
// at the current step
async function refreshThinking() {
  const slot = document.getElementById("think-slot");
  if (!slot || !view) return;
  if (!thinkingOn) { slot.replaceChildren(); return; }
  const v = view;
  const url = thinkingUrl(v);
  // paint into the slot of the table now shown, if it still asks for the same
  const put = el => { const now = document.getElementById("think-slot"); if (now && view && thinkingOn && thinkingUrl(view) === url) now.replaceChildren(el); };
  const title = watch ? "How the seat to act thinks" : "How the bot thinks";
  if (!watch && v.bot_estimates === false) {
    put(renderThinking(null, { title, note: "This table hides the bots' estimates (a setting of the new game): the server sends none." }));
    return;
  }
  if (!url) {
    put(renderThinking(null, { title, note: watch ? "the end of the record: no move is left to weigh"
      : "No bot's thinking yet: Expert and Hard bots show theirs once they have moved (Easy and Normal follow fixed rules)." }));
    return;
  }
  let data = null;
  if (!watch) {
    const move = thinkingMove(v);
    const key = v.id + ":" + move;
    if (v.thinking && v.thinking.move === move) thinkingCache.set(key, v.thinking);
    data = thinkingCache.get(key) || null;
  } else if (watch.thinking && watch.thinking.url === url) {
    data = watch.thinking.data;
  }
  if (data) { put(renderThinking(data, { title })); return; }
  if (!slot.firstChild || watch) put(renderThinking(null, { title, note: watch ? "the seat to act decides again…" : "…" }));
  if (thinkingFetch === url) return; // on its way: the answer paints it
  if (thinkingFetch !== null && watch) return; // one at a time in Watch; the answer looks again
  thinkingFetch = url;
  const res = await api("GET", url);
  thinkingFetch = null;
  if (res.ok) {
    if (watch) watch.thinking = { url, data: res.data };
    else thinkingCache.set(v.id + ":" + res.data.move, res.data);
  }
  if (!view || thinkingUrl(view) !== url) { refreshThinking(); return; } // moved on meanwhile
  put(res.ok ? renderThinking(res.data, { title }) : renderThinking(null, { title, note: res.error }));
}

function setThinking(on) {
  thinkingOn = on;
  localStorage.setItem("burako-thinking", on ? "on" : "off");
  const box = document.getElementById("think-toggle");
  if (box) box.checked = on;
  refreshThinking();
}

// a log entry's thinking (play: entries marked "why?")
function showThinkingOf(move) {
  pinnedMove = move;
  setThinking(true);
}

// the hint panel: the table's ``hint`` (kept by the server until the next move): the
// advice in plain words first, Expert's plan for the turn where it has one, then the
// research numbers behind "details" (closed until opened)
function renderHint(t, onclose) {
  const box = h("div", { class: "thinking panel hint-box", id: "hint-panel" },
    h("h3", {}, "Hint: what Expert would play in your seat",
      h("button", { class: "think-close", title: "close", onclick: onclose }, "✕")),
    h("p", { class: "hint-advice", id: "hint-advice" }, t.advice),
    h("p", { class: "hint-note" }, t.advice_note));
  if (t.plan && t.plan.length > 1) {
    box.append(h("div", { class: "hint-plan", id: "hint-plan" },
      h("div", { class: "hint-plan-head" }, "Expert's plan for this turn:"),
      h("ol", {}, t.plan.map(m => h("li", { "data-action": m.action }, m.text))),
      h("div", { class: "hint-plan-end" }, t.plan_end)));
  } else if (t.plan_end) {
    box.append(h("p", { class: "hint-plan-end" }, t.plan_end));
  }
  box.append(h("details", { class: "hint-details", id: "hint-details" }, h("summary", {}, "details"),
    renderThinking(t, { id: "hint-research", title: "Expert's numbers: every move it weighed" })));
  return box;
}

// the cards of the hinted move, outlined in the hand (the hand is drawn anew after a move,
// and the table's hint is gone then: the outline goes with it)
function markHintCards() {
  const hand = document.getElementById("hand");
  if (!hand) return;
  hand.querySelectorAll(".hint-card").forEach(el => el.classList.remove("hint-card"));
  const want = (view && view.hint && view.hint.cards) || [];
  const els = Array.from(hand.querySelectorAll(".card[data-card]"));
  for (const c of want) {
    const el = els.find(x => +x.dataset.card === c && !x.classList.contains("hint-card"));
    if (el) el.classList.add("hint-card");
  }
}

function paintHint() {
  const slot = document.getElementById("hint-slot");
  if (!slot || !view) return;
  if (view.hint) {
    slot.replaceChildren(renderHint(view.hint, () => { view.hint = null; paintHint(); }));
  } else if (hintLoading) {
    slot.replaceChildren(renderThinking(null, { id: "hint-panel", title: "Hint", note: "Expert is weighing your moves…" }));
  } else slot.replaceChildren();
  markHintCards();
}

async function askHint() {
  const v = view;
  const url = hintUrl(v);
  if (!url || hintLoading) return;
  if (v.hint) { paintHint(); return; }
  hintLoading = true;
  paintHint();
  const res = await api("POST", url);
  hintLoading = false;
  if (view !== v && (!view || view.id !== v.id || view.log.length !== v.log.length)) { paintHint(); return; } // a move came first
  if (!res.ok) { setMessage(res.error, "error"); paintHint(); return; }
  view.hint = res.data;
  paintHint();
}

// ------------------------------------------------------------------ sounds
// Short tones made by the Web Audio API (no audio files): a chime when the person's turn
// begins (once a turn, the first included: a game that opens on the person's turn chimes
// as it shows), a soft tick for every other move. On until muted (the toolbar's switch,
// kept by the browser). A browser lets a page sound only after a gesture on it, so the
// audio context is made (or resumed) at the person's first tap, click or key: nothing
// sounds before it, and nothing is refused or logged.
let soundOn = localStorage.getItem("burako-sound") !== "off";
let audio = null;
const soundsPlayed = []; // what was sounded (the last 100), read by the browser tests

function unlockAudio() {
  try {
    if (!audio) audio = new (window.AudioContext || window.webkitAudioContext)();
    if (audio.state === "suspended") audio.resume();
  } catch (err) { audio = null; } // no Web Audio: the table plays in silence
}
document.addEventListener("pointerdown", unlockAudio, true);
document.addEventListener("keydown", unlockAudio, true);

function tone(freq, at, length, volume, type) {
  const osc = audio.createOscillator();
  const gain = audio.createGain();
  osc.type = type;
  osc.frequency.value = freq;
  gain.gain.setValueAtTime(volume, at);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + length); // no click at the end
  osc.connect(gain).connect(audio.destination);
  osc.start(at);
  osc.stop(at + length + 0.02);
}

function sound(kind) {
  if (!soundOn) return;
  soundsPlayed.push(kind);
  if (soundsPlayed.length > 100) soundsPlayed.shift();
  if (!audio || audio.state !== "running") return;
  const t = audio.currentTime;
  if (kind === "turn") { tone(660, t, 0.2, 0.15, "sine"); tone(990, t + 0.13, 0.3, 0.15, "sine"); }
  else tone(1800, t, 0.05, 0.06, "triangle");
}

// the person's turn now, as a key: the game, the hand and the last move another seat made
// before it (0: none yet this game); null when it is not their turn
function turnKey(v) {
  if (v.over || v.to_act !== v.seat) return null;
  let after = 0;
  for (let i = v.log.length - 1; i >= 0; i--) {
    const e = v.log[i];
    if (e.seat !== null && e.seat !== undefined && e.seat !== v.seat) { after = e.move; break; }
  }
  return v.hand_number + ":" + after;
}

// whether table v begins a turn of the person's not yet chimed in this tab (kept by the
// tab, so a reload mid-turn does not chime again); notes it as chimed, sound on or off
function chimeDue(v) {
  const key = turnKey(v);
  const kept = "burako-chimed-" + v.id;
  if (key === null || sessionStorage.getItem(kept) === key) return false;
  sessionStorage.setItem(kept, key);
  return true;
}

function setSound(on) {
  soundOn = on;
  localStorage.setItem("burako-sound", on ? "on" : "off");
  const b = document.getElementById("sound");
  if (b) { b.textContent = soundButtonText(); b.setAttribute("aria-pressed", String(on)); }
  if (on) unlockAudio();
}
function soundButtonText() { return soundOn ? "♪ sound" : "♪ muted"; }

// ------------------------------------------------------------------ the tab's title
// While the person is to act in a live game the tab's title starts with "(Your turn)".
// A title needs no permission and no click on the page (a sound does), so it tells a
// friend who opened a seat link from another program, or a person looking at another
// tab, that the table waits for them, sound on or off. It is written only when it
// changes: the bots' moves leave it alone (no flicker, nothing for a screen reader to
// read again), and it goes back to the page's own title when the turn passes, the game
// ends or the page shows another view.
const PAGE_TITLE = document.title;
const TURN_TITLE = "(Your turn) " + PAGE_TITLE;

function paintTitle() {
  const title = myTurnNow() ? TURN_TITLE : PAGE_TITLE;
  if (document.title !== title) document.title = title;
}

// ------------------------------------------------------------------ helpers
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (err) {
    return { ok: false, status: 0, error: "the server does not answer (" + err.message + ")" };
  }
  let data = null;
  try { data = await res.json(); } catch (err) { data = null; }
  if (!res.ok) {
    return { ok: false, status: res.status, error: (data && data.error) || res.status + " " + res.statusText };
  }
  return { ok: true, data };
}

function face(id) { return options.faces[id]; }
function cardText(id) { const f = face(id); return f.suit === "joker" ? "joker" : f.rank + f.symbol; }
function cardsText(ids) { return ids.map(cardText).join(" "); }

function cardEl(id, extra) {
  extra = extra || {};
  const f = face(id);
  const cls = ["card", f.suit, extra.small ? "small" : "", extra.wild ? "wild" : "", extra.cls || ""];
  const stands = extra.standsFor && extra.standsFor.length ? ", stands for " + extra.standsFor.map(cardText).join(" or ") : "";
  const el = h("div", { class: cls.filter(Boolean).join(" "), "data-card": id, title: cardText(id) + (extra.wild ? " (wild" + stands + ")" : "") },
    f.suit === "joker" ? [h("span", { class: "rank" }, "★"), h("span", { class: "suit" }, "JOKER")]
                       : [h("span", { class: "rank" }, f.rank), h("span", { class: "pip" }, f.symbol), h("span", { class: "suit" }, f.symbol)]);
  if (extra.wild) el.append(h("span", { class: "tag" }, extra.wild === "end" ? "wild · end" : "wild"));
  if (extra.onclick) el.addEventListener("click", extra.onclick);
  return el;
}

function backEl(small) { return h("div", { class: "card back" + (small ? " small" : "") }); }

function seatName(p, v) {
  const names = v.names || [];
  const who = names[p] === "you" ? "you" : names[p] || "?";
  return "P" + p + " (" + who + ")";
}

function setMessage(text, kind) { message = { text: text || "", kind: kind || "info" }; paintMessage(); }
function paintMessage() {
  const el = document.getElementById("message");
  if (!el) return;
  el.textContent = message.text;
  el.className = "message " + (message.text ? message.kind : "");
}

function sortedKey(ids) { return ids.slice().sort((a, b) => a - b).join(","); }

// the cards of ``a`` not in ``b`` (multisets of card ids)
function minus(a, b) {
  const left = b.slice();
  const out = [];
  for (const c of a) { const k = left.indexOf(c); if (k >= 0) left.splice(k, 1); else out.push(c); }
  return out;
}

// the wilds (the jokers and every 2: RULES.md 1) are held together at the end of the
// hand, the 2s just before the jokers, whatever the sort
function wildKey(c) { return c === 52 ? 2 : c % 13 === 1 ? 1 : 0; }
function rankKey(c) { return wildKey(c) * 1000 + (c % 13) * 4 + Math.floor(c / 13); }
// by suit: the server's order (suit, then rank), the wilds moved after the others
function suitKey(c) { return wildKey(c) * 1000 + (c === 52 ? 0 : c); }

// ------------------------------------------------------------------ routing
function route() {
  clearTimeout(botTimer);
  stopAuto();
  view = null; watch = null; selected = []; showPile = false; summaryShown = false;
  order = []; drawn = []; turnBase = null; markBase = null; skipping = false; drawerOpen = false;
  pinnedMove = null; hintLoading = false;
  document.body.classList.remove("drawer-open");
  setMessage("");
  paintTitle(); // no game shown until the new view loads one
  const hash = location.hash || "#/";
  if (hash.startsWith("#/play/")) return openGame(decodeURIComponent(hash.slice(7)));
  if (hash.startsWith("#/join/")) return joinGame(hash.slice(7));
  if (hash.startsWith("#/watch")) {
    const q = new URLSearchParams(hash.split("?")[1] || "");
    if (q.get("file")) return openRecord(q.get("file"), +(q.get("game") || 0), +(q.get("step") || 0), q.get("viewer") || "all");
    return showRecordFiles();
  }
  return showSetup();
}

// ------------------------------------------------------------------ set-up form
function showSetup() {
  const variantSel = h("select", { id: "variant" }, options.variants.map(v => h("option", { value: v.name }, v.name)));
  const playersSel = h("select", { id: "players" });
  const seatSel = h("select", { id: "seat" });
  const botsBox = h("div", { id: "bots" });
  const allBots = h("select", { id: "bots-all" });
  // empty: the server deals at random and keeps the seed until the game ends (the seed
  // deals every hidden card); digits are sent as a string: a number rounds past 2**53
  const seed = h("input", { id: "seed", type: "text", inputmode: "numeric", pattern: "[0-9]*", placeholder: "random", value: "" });
  const hand = h("input", { type: "radio", name: "episode", value: "hand", id: "ep-hand", checked: true });
  const match = h("input", { type: "radio", name: "episode", value: "match", id: "ep-match" });
  const error = h("div", { id: "message", class: "message" });
  // a table setting: the bots' thinking (its numbers read their hidden hands) shown or not
  const estimates = h("input", { type: "checkbox", id: "bot-estimates", checked: true });
  // the variant's rules in words (burako rules' own text) and the house rules it offers
  const rulesText = h("pre", { id: "rules-text", class: "rules-text", hidden: true });
  const houseBox = h("div", { id: "house-rules" });
  let houseDefaults = {};
  const rulesToggle = h("button", { type: "button", id: "show-rules", onclick: () => {
    rulesText.hidden = !rulesText.hidden;
    rulesToggle.textContent = rulesText.hidden ? "Read the rules" : "Hide the rules";
  } }, "Read the rules");
  async function fillRules() {
    const res = await api("GET", "/api/rules?" + new URLSearchParams({ variant: variantSel.value, players: playersSel.value }));
    if (!res.ok) { houseBox.replaceChildren(h("span", { class: "bad" }, res.error)); return; }
    rulesText.textContent = res.data.text;
    houseDefaults = {};
    houseBox.replaceChildren(...res.data.house_rules.map(r => {
      houseDefaults[r.name] = r.value;
      let input;
      if (r.kind === "bool") input = h("input", { type: "checkbox", "data-rule": r.name, checked: r.value });
      else if (r.choices) input = h("select", { "data-rule": r.name }, r.choices.map(c => h("option", { value: c, selected: c === r.value }, c.replace(/_/g, " "))));
      else input = h("input", { type: "number", "data-rule": r.name, value: r.value, step: 1 });
      return h("label", { title: r.text }, r.name.replace(/_/g, " ") + " ", input, h("small", {}, " " + r.text));
    }));
  }
  function houseRules() {
    // only what the player changed: the variant's own rules stay its own
    const out = {};
    houseBox.querySelectorAll("[data-rule]").forEach(el => {
      const name = el.dataset.rule;
      const value = el.type === "checkbox" ? el.checked : el.tagName === "SELECT" ? el.value : Number(el.value);
      if (value !== houseDefaults[name]) out[name] = value;
    });
    return out;
  }

  function fillPlayers() {
    const v = options.variants.find(x => x.name === variantSel.value);
    playersSel.replaceChildren(...v.players.map(n => h("option", { value: n, selected: n === v.default_players }, n + " players")));
    fillSeats();
  }
  function fillSeats() {
    const n = +playersSel.value;
    const keep = Math.min(+seatSel.value || 0, n - 1);
    seatSel.replaceChildren(...Array.from({ length: n }, (_, p) => h("option", { value: p, selected: p === keep }, "P" + p + " (team " + (p % 2) + ")")));
    fillBots();
    fillRules();
  }
  function fillBots() {
    // the levels that play this table, by name; the default level (Hard where it plays)
    const n = +playersSel.value, seat = +seatSel.value;
    const v = options.variants.find(x => x.name === variantSel.value);
    const ids = v.levels[String(n)];
    const pick = ids.includes(allBots.value) ? allBots.value : v.default_level[String(n)];
    const levelOptions = chosen => options.levels.filter(l => ids.includes(l.id)).map(l => h("option", { value: l.id, title: l.text, selected: l.id === chosen }, l.name));
    allBots.replaceChildren(...levelOptions(pick));
    // a friend may take any other seat: the game's answer carries that seat's link
    const friend = () => h("option", { value: "friend", title: "a person, who joins with a private link" }, "a friend (a link)");
    botsBox.replaceChildren(...Array.from({ length: n }, (_, p) => p).filter(p => p !== seat).map(p =>
      h("label", {}, "P" + p + " (team " + (p % 2) + ", " + (p % 2 === seat % 2 ? "your partner" : "opponent") + ") ",
        h("select", { class: "bot", "data-seat": p }, levelOptions(pick), friend()))));
  }
  variantSel.addEventListener("change", fillPlayers);
  playersSel.addEventListener("change", fillSeats);
  seatSel.addEventListener("change", fillBots);
  allBots.addEventListener("change", () => botsBox.querySelectorAll("select.bot").forEach(s => { s.value = allBots.value; }));

  async function start(ev) {
    ev.preventDefault();
    if (busy) return;
    const seatSelects = Array.from(botsBox.querySelectorAll("select.bot"));
    const friends = seatSelects.filter(s => s.value === "friend").map(s => +s.dataset.seat);
    const body = {
      variant: variantSel.value, players: +playersSel.value, seat: +seatSel.value,
      bots: seatSelects.filter(s => s.value !== "friend").map(s => s.value),
      episode: match.checked ? "match" : "hand",
    };
    if (friends.length) body.people = [+seatSel.value].concat(friends);
    if (!estimates.checked) body.bot_estimates = false;
    if (seed.value.trim()) body.seed = seed.value.trim();
    const rules = houseRules();
    if (Object.keys(rules).length) body.rules = rules;
    busy = true;
    error.textContent = "Dealing…"; error.className = "message info";
    const res = await api("POST", "/api/games", body);
    busy = false;
    if (!res.ok) { error.textContent = res.error; error.className = "message error"; return; }
    sessionStorage.setItem("burako-seen-" + res.data.id, "0");
    localStorage.setItem("burako-last-game", res.data.id);
    if (res.data.links) seatLinks = { id: res.data.id, links: res.data.links };
    location.hash = "#/play/" + res.data.id;
  }

  const last = localStorage.getItem("burako-last-game");
  app.replaceChildren(h("form", { class: "setup panel", id: "setup", onsubmit: start },
    h("h2", {}, "A new game against the bots"),
    h("fieldset", {}, h("legend", {}, "Table"),
      h("label", {}, "Variant ", variantSel), h("label", {}, "Players ", playersSel), h("label", {}, "Your seat ", seatSel)),
    h("fieldset", {}, h("legend", {}, "Bots"), h("label", {}, "All bots ", allBots), botsBox,
      h("label", { title: "Expert's and Hard's numbers after their moves: estimates each reads from its own hidden hand (off: the server sends none)" },
        estimates, " show the bots' estimates (how they think)")),
    h("fieldset", {}, h("legend", {}, "Game"),
      h("label", {}, hand, " one hand"), h("label", {}, match, " a whole match"),
      h("label", {}, "Deal seed ", seed)),
    h("fieldset", {}, h("legend", {}, "Rules"), rulesToggle, rulesText,
      h("details", { id: "house" }, h("summary", {}, "House rules (the target score, going out, the pile, the muertos, the first meld)"), houseBox)),
    h("button", { class: "primary", type: "submit", id: "start" }, "Deal"),
    last ? h("a", { href: "#/play/" + last, id: "resume", style: "margin-left:14px" }, "resume your last game") : null,
    error));
  fillPlayers();
}

// ------------------------------------------------------------------ playing
async function openGame(id) {
  app.replaceChildren(h("p", { class: "loading" }, "Loading the game…"));
  const res = await api("GET", "/api/games/" + encodeURIComponent(id));
  if (!res.ok) {
    app.replaceChildren(h("div", { class: "panel" }, h("div", { id: "message", class: "message error" }, res.error),
      h("p", {}, h("a", { href: "#/" }, "Start a new game"))));
    if (res.status === 404 && localStorage.getItem("burako-last-game") === id) localStorage.removeItem("burako-last-game");
    return;
  }
  localStorage.setItem("burako-last-game", id);
  setView(res.data);
}

// a seat's link: the page takes the seat (its cookie) and opens the table as that seat sees it
async function joinGame(rest) {
  const [id, token] = rest.split("/").map(decodeURIComponent);
  app.replaceChildren(h("p", { class: "loading" }, "Taking your seat…"));
  const res = await api("POST", "/api/games/" + encodeURIComponent(id) + "/join", { token: token || "" });
  if (!res.ok) {
    app.replaceChildren(h("div", { class: "panel" }, h("div", { id: "message", class: "message error" }, res.error),
      h("p", {}, h("a", { href: "#/" }, "Start a new game"))));
    return;
  }
  localStorage.setItem("burako-last-game", id);
  location.replace("#/play/" + encodeURIComponent(id)); // the token leaves the address bar
}

function seatLink(id, token) { return location.origin + "/#/join/" + encodeURIComponent(id) + "/" + encodeURIComponent(token); }

// the seats' links of the game just dealt: the server sends them once, nothing keeps them
function linksEl(v) {
  if (!seatLinks || seatLinks.id !== v.id) return null;
  const rows = seatLinks.links.map(l => {
    const url = seatLink(v.id, l.token);
    const box = h("input", { type: "text", readonly: true, value: url, class: "seat-link", "data-seat": l.seat, size: 48 });
    const copy = h("button", { type: "button", class: "copy-link", "data-seat": l.seat, onclick: async () => {
      try { await navigator.clipboard.writeText(url); copy.textContent = "copied"; }
      catch (err) { box.select(); copy.textContent = "selected: Ctrl+C"; }
      setTimeout(() => { copy.textContent = "copy"; }, 1500);
    } }, "copy");
    const who = l.yours ? "your own seat (to come back from another device)" : (l.seat % 2 === v.seat % 2 ? "your partner" : "an opponent");
    return h("div", { class: "link-row" }, h("label", {}, "P" + l.seat + ", " + who + " "), box, copy);
  });
  return h("div", { class: "panel links", id: "links" },
    h("h3", {}, "Links to the seats: send each friend theirs (shown only now)"),
    h("p", {}, "A link is the seat's key: whoever opens it plays that seat, and opening it again on another device moves the seat there."),
    ...rows,
    h("button", { type: "button", id: "links-done", onclick: () => { seatLinks = null; renderPlay(); } }, "done"));
}

function seenHands() { return +(sessionStorage.getItem("burako-seen-" + view.id) || 0); }

function mySeat(v) { return v.seats[v.seat]; }

// what a table looks like for marking: each meld's cards, and the pile's size
function snapshot(v) {
  return { hand: v.hand_number, melds: v.melds.map(ms => ms.map(m => m.cards.map(x => x.card))), pile: v.pile.length };
}

// the hand as the person keeps it: the order they chose, new cards at the end
function arrange(serverHand) {
  if (sortMode === "suit") return serverHand.slice().sort((a, b) => suitKey(a) - suitKey(b));
  if (sortMode === "rank") return serverHand.slice().sort((a, b) => rankKey(a) - rankKey(b));
  const kept = [];
  const left = serverHand.slice();
  for (const c of order) { const k = left.indexOf(c); if (k >= 0) { kept.push(c); left.splice(k, 1); } }
  return kept.concat(left);
}

function setView(v) {
  const prev = view;
  const oldHand = prev ? (mySeat(prev).hand || []) : null;
  const newHand = mySeat(v).hand || [];
  const handChanged = !prev || sortedKey(oldHand) !== sortedKey(newHand);
  if (prev && prev.id === v.id && oldHand) {
    const gained = minus(newHand, oldHand);
    const lost = minus(oldHand, newHand);
    if (prev.to_act === prev.seat && gained.length && !lost.length) drawn = drawn.concat(gained);
    if (v.to_act !== v.seat || v.hand_number !== prev.hand_number) drawn = [];
    drawn = drawn.filter(c => newHand.includes(c));
  }
  if (!prev || prev.id !== v.id || v.hand_number !== prev.hand_number) {
    turnBase = snapshot(v); markBase = snapshot(v);
  } else if (v.to_act !== prev.to_act) {
    markBase = turnBase; turnBase = snapshot(v);
  }
  if (prev && (prev.id !== v.id || prev.log.length !== v.log.length)) pinnedMove = null; // a new move: its thinking
  view = v;
  if (handChanged) selected = [];
  order = arrange(newHand);
  renderPlay();
  paintTitle();
  if (prev && prev.id === v.id && animMs() > 0) animateChange(prev, v);
  // the chime once per turn of the person's, also when the turn is theirs as the game
  // loads (dealt, joined, resumed), which no move before it in this tab announced
  if (chimeDue(v)) sound("turn");
  else if (prev && prev.id === v.id && v.move_count !== prev.move_count) sound("card");
  scheduleBot();
}

function personToAct(v) { return (v.people || [v.seat]).includes(v.to_act); }

function scheduleBot() {
  clearTimeout(botTimer);
  if (!view || watch || view.over || view.to_act === view.seat || summaryShown) { skipping = false; return; }
  const id = view.id;
  // another person to act: ask for the table until they have moved
  const polling = personToAct(view);
  botTimer = setTimeout(async () => {
    if (!view || view.id !== id || busy) { scheduleBot(); return; }
    busy = true;
    // after=N: every browser at the table asks for the bot move after move N; one plays it
    const res = polling
      ? await api("GET", "/api/games/" + encodeURIComponent(id))
      : await api("POST", "/api/games/" + encodeURIComponent(id) + "/bot?after=" + view.move_count);
    busy = false;
    if (!view || view.id !== id) return;
    if (!res.ok) { setMessage(res.error, "error"); return; }
    if (res.data.move_count !== view.move_count || res.data.over !== view.over) setView(res.data);
    else scheduleBot();
  }, polling ? POLL_MS : botDelay());
}

function skipToMyTurn() {
  if (!view || view.over || view.to_act === view.seat) return;
  skipping = true;
  scheduleBot();
}

async function sendMove(body) {
  if (busy || !view) return;
  busy = true;
  const res = await api("POST", "/api/games/" + encodeURIComponent(view.id) + "/move", body);
  busy = false;
  if (res.ok) { setMessage(""); selected = []; setView(res.data); }
  else setMessage(res.error, "error"); // the game is as it was: keep the table and selection
}

function selectedCards() { return selected.map(i => order[i]); }

function toggle(i) {
  const k = selected.indexOf(i);
  if (k >= 0) selected.splice(k, 1); else selected.push(i);
  setMessage("");
  renderPlay();
}

function clearSelection() { if (selected.length) { selected = []; renderPlay(); } }

function movesOf(kind) { return view ? view.moves.filter(m => m.kind === kind) : []; }

function myTurnNow() { return view && !watch && !view.over && view.to_act === view.seat && view.moves.length > 0; }

// gestures: the legal move they stand for (its action id), else the move on cards
function playDiscard(card) {
  const m = movesOf("discard").find(x => x.cards[0] === card);
  sendMove(m ? { action: m.action } : { kind: "discard", cards: [card] });
}
function playAdd(card, slot) {
  const m = movesOf("add").find(x => x.cards[0] === card && x.slot === slot);
  sendMove(m ? { action: m.action } : { kind: "add", cards: [card], slot });
}
function playOpen(cards) {
  const key = sortedKey(cards);
  const found = movesOf("open").filter(m => sortedKey(m.cards) === key);
  if (found.length === 1) sendMove({ action: found[0].action });
  else if (!found.length) sendMove({ kind: "open", cards });
  else setMessage("These cards open more than one meld: pick one of the Meld buttons.", "info");
}
function playKind(kind) {
  const m = movesOf(kind)[0];
  if (m) sendMove({ action: m.action });
  return !!m;
}

function clickStock() {
  if (!myTurnNow()) return;
  if (view.phase === "peek") playKind("peek_reject");
  else playKind("draw");
}

function clickPile() {
  if (!view || watch) return;
  const cards = selectedCards();
  if (cards.length === 1) { playDiscard(cards[0]); return; }
  if (myTurnNow() && playKind("take_pile")) return;
  if (view.pile.length > 1) { showPile = !showPile; renderPlay(); }
}

function setSort(mode) {
  sortMode = mode;
  localStorage.setItem("burako-sort", mode);
  const keep = selectedCards();
  order = arrange(mySeat(view).hand || []);
  selected = reselect(keep);
  renderPlay();
}

// the positions of ``cards`` in the hand as now shown
function reselect(cards) {
  const used = new Set();
  const out = [];
  for (const c of cards) {
    const i = order.findIndex((x, k) => x === c && !used.has(k));
    if (i >= 0) { used.add(i); out.push(i); }
  }
  return out;
}

function moveInHand(from, to) {
  const keep = selectedCards();
  const [c] = order.splice(from, 1);
  order.splice(to > from ? to - 1 : to, 0, c);
  sortMode = "own";
  localStorage.setItem("burako-sort", "own");
  selected = reselect(keep);
  renderPlay();
}

function renderPlay() {
  const v = view;
  const me = mySeat(v);
  const myTurn = !v.over && v.to_act === v.seat && v.moves.length > 0;
  const cards = selectedCards();
  const one = cards.length === 1 ? cards[0] : null;
  const discards = new Set(movesOf("discard").map(m => m.cards[0]));
  const adds = movesOf("add");
  const addable = new Set(adds.map(m => m.cards[0]));
  const addSlots = new Set(adds.filter(m => m.cards[0] === one).map(m => m.slot));
  const fresh = drawn.slice();

  const hand = h("div", { class: "cards hand", id: "hand" }, order.map((c, i) => {
    const k = fresh.indexOf(c);
    const isDrawn = k >= 0;
    if (isDrawn) fresh.splice(k, 1);
    const el = cardEl(c, {
      cls: [selected.includes(i) ? "selected" : "", discards.has(c) ? "discardable" : "", addable.has(c) ? "addable" : "", isDrawn ? "drawn" : ""].join(" "),
    });
    el.dataset.pos = i;
    el.addEventListener("click", ev => { if (dragJustEnded) return; toggle(i); });
    el.addEventListener("dblclick", ev => { ev.preventDefault(); if (myTurnNow() && discards.has(c) && bothClicksOn(i)) playDiscard(c); });
    el.addEventListener("pointerdown", ev => startDrag(ev, i));
    return el;
  }));

  // buttons: the moves that take no card choice, then those the selection makes
  const actions = h("div", { class: "actions", id: "actions" });
  if (myTurn) {
    for (const m of v.moves) {
      if (m.kind === "open" || m.kind === "add" || m.kind === "discard") continue;
      actions.append(h("button", { class: "primary", "data-kind": m.kind, "data-action": m.action, onclick: () => sendMove({ action: m.action }) }, m.text));
    }
    if (one !== null && discards.has(one)) {
      actions.append(h("button", { class: "primary", id: "discard", onclick: () => playDiscard(one) }, "Discard " + cardText(one)));
    }
    if (cards.length >= 2) {
      const key = sortedKey(cards);
      const opens = movesOf("open").filter(m => sortedKey(m.cards) === key);
      for (const m of opens) {
        actions.append(h("button", { class: "primary", "data-kind": "open", "data-action": m.action, onclick: () => sendMove({ action: m.action }) }, "Meld: " + m.text));
      }
      if (!opens.length) {
        actions.append(h("button", { class: "attempt", id: "meld-try", onclick: () => sendMove({ kind: "open", cards }) }, "Meld " + cardsText(cards)));
      }
    }
    if (v.phase === "play") {
      actions.prepend(h("div", { class: "hint" }, cards.length
        ? "Drop or click: a glowing meld adds the card, the pile discards it (or double-click it)."
        : "Select cards: one to discard or add to a meld, three to open a meld. Drag to reorder."));
    } else if (v.phase === "draw") {
      actions.prepend(h("div", { class: "hint" }, "Click the stock to draw" + (movesOf("take_pile").length ? ", the pile to take it." : ".")));
    } else if (v.phase === "peek") {
      actions.prepend(h("div", { class: "hint" }, "Click the peeked card to keep it, the stock to draw the next."));
    }
  } else if (!v.over) {
    actions.append(h("div", { class: "hint" }, seatName(v.to_act, v) + " is thinking…"));
  }

  // openings the hand allows, laid out as they would stand on the table
  let suggest = null;
  const opens = myTurn ? movesOf("open") : [];
  if (opens.length) {
    const seen = new Set();
    const shown = opens.filter(m => { const k = m.text + "|" + sortedKey(m.cards); if (seen.has(k)) return false; seen.add(k); return true; });
    suggest = h("details", { class: "suggest", id: "suggest" }, h("summary", {}, "Melds you can open (" + shown.length + ")"),
      h("div", { class: "options" }, shown.map(m => h("div", { class: "option", title: m.text + (m.wild_text ? " (" + m.wild_text + ")" : ""), "data-action": m.action, onclick: () => sendMove({ action: m.action }) },
        (m.meld || m.cards.map(c => ({ card: c, wild: null }))).map(x => cardEl(x.card, { small: true, wild: x.wild, standsFor: x.stands_for }))))));
  }

  const handTools = h("div", { class: "hand-tools" },
    h("button", { id: "sort-suit", class: sortMode === "suit" ? "on" : "", title: "sort by suit (S)", onclick: () => setSort("suit") }, "by suit"),
    h("button", { id: "sort-rank", class: sortMode === "rank" ? "on" : "", title: "sort by rank (R)", onclick: () => setSort("rank") }, "by rank"),
    h("button", { id: "clear", title: "clear the selection (Esc)", disabled: !selected.length, onclick: clearSelection }, "clear"));

  // data-state and data-moves let a script (the browser tests) wait for the next turn
  const state = v.over ? "over" : myTurn ? "my-turn" : "waiting";
  app.replaceChildren(h("div", { class: "table play", id: "table", "data-state": state, "data-moves": v.log.length },
    h("div", { class: "board" },
      statusLine(v),
      toolbar(v),
      linksEl(v),
      h("div", { id: "hint-slot" }),
      h("div", { id: "think-slot" }),
      seatsEl(v, false),
      middleEl(v, one, myTurn),
      teamsEl(v, addSlots, one, myTurn),
      h("div", { class: "mine panel", id: "mine" },
        h("div", { class: "mine-head" },
          h("h3", {}, "Your hand, P" + v.seat + " (team " + (v.seat % 2) + "), " + me.cards + (me.cards === 1 ? " card" : " cards")),
          handTools),
        lastMoveEl(v.seat, lastMoves(v)),
        actions, hand, suggest,
        h("div", { id: "message", class: "message" }))),
    h("aside", { class: "side", id: "side" },
      h("button", { class: "drawer-close", id: "drawer-close", onclick: () => setDrawer(false) }, "close ✕"),
      scoresEl(v), logEl(v.log, null))));
  layoutHand();
  paintMessage();
  paintHint();
  refreshThinking();
  maybeSummary();
}

function toolbar(v) {
  const speed = h("select", { id: "speed", title: "how fast the bots play" },
    Object.keys(SPEEDS).map(s => h("option", { value: s, selected: s === speedName() }, s)));
  speed.addEventListener("change", () => { localStorage.setItem("burako-speed", speed.value); scheduleBot(); });
  const think = thinkToggle("how the bots think: Expert's search, Hard's network, after their moves");
  const hint = hintUrl(v) ? h("button", { id: "hint", title: "hint (H): what Expert would play in your seat", onclick: askHint }, "hint") : null;
  return h("div", { class: "toolbar", id: "toolbar" },
    h("label", {}, "bots ", speed),
    h("button", { id: "skip", title: "skip to my turn (F)", disabled: v.over || v.to_act === v.seat, onclick: skipToMyTurn }, "skip to my turn »"),
    hint, think,
    h("button", { id: "log-toggle", class: "drawer-open-btn", title: "moves and scores (L)", onclick: () => setDrawer(!drawerOpen) }, "moves ☰"),
    h("button", { id: "sound", title: "sounds: a chime when your turn begins, a tick for each move", "aria-pressed": String(soundOn),
      onclick: () => setSound(!soundOn) }, soundButtonText()),
    h("button", { id: "help-btn", title: "keys and gestures (?)", onclick: toggleHelp }, "?"));
}

// the "how the bot thinks" switch (off until turned on; remembered by the browser)
function thinkToggle(title) {
  return h("label", { class: "think-toggle", title },
    h("input", { type: "checkbox", id: "think-toggle", checked: thinkingOn, onchange: ev => { pinnedMove = null; setThinking(ev.target.checked); } }),
    " how the bot thinks");
}

function setDrawer(open) {
  drawerOpen = open;
  document.body.classList.toggle("drawer-open", open);
}

// the hand fans out (cards overlap) when it does not fit one row
function layoutHand() {
  const el = document.getElementById("hand");
  if (!el) return;
  const cards = el.children.length;
  const first = el.firstElementChild;
  if (!first) return;
  const cardW = first.offsetWidth; // the layout's width (a selected card is transformed)
  // the row's width: the first card whole, each next one a step (the hand's own width,
  // its padding left to the fan: see .hand in app.css)
  const width = el.clientWidth - 2;
  const open = cardW + 4;
  const minStep = Math.min(open, Math.max(18, cardW * 0.42));
  let step = cards > 1 ? Math.min(open, (width - cardW) / (cards - 1)) : open;
  if (step < minStep) step = minStep; // two rows, still fanned
  el.style.setProperty("--step", step.toFixed(2) + "px");
  el.classList.toggle("fanned", step < open);
}
window.addEventListener("resize", () => layoutHand());

// a double-click discards only when both its clicks fell on that card: on a phone a tap on
// a button of the hand's bar, then a quick tap on the card drawn where the button was (the
// bar redrawn between them), is a double tap to the browser, not a discard to the person
let clickTrail = [null, null]; // the hand positions of the last two clicks (null: elsewhere)
document.addEventListener("click", ev => {
  const card = ev.target.closest ? ev.target.closest("#hand .card") : null;
  clickTrail = [clickTrail[1], card ? +card.dataset.pos : null];
}, true);
function bothClicksOn(pos) { return clickTrail[0] === pos && clickTrail[1] === pos; }

// ------------------------------------------------------------------ dragging a card
let drag = null;
let dragJustEnded = false;

function startDrag(ev, pos) {
  if (ev.button !== undefined && ev.button !== 0) return;
  const el = ev.currentTarget;
  drag = { pos, el, x0: ev.clientX, y0: ev.clientY, id: ev.pointerId, ghost: null };
  el.setPointerCapture?.(ev.pointerId);
}

function dropTarget(x, y) {
  const under = document.elementFromPoint(x, y);
  if (!under) return null;
  const mine = view.seat % 2;
  const meld = under.closest(".meld[data-team='" + mine + "']");
  if (meld) return { kind: "add", el: meld, slot: +meld.dataset.slot };
  const pile = under.closest("#pile");
  if (pile) return { kind: "discard", el: pile };
  const card = under.closest("#hand .card");
  if (card) return { kind: "reorder", el: card, pos: +card.dataset.pos };
  const area = under.closest("#melds-" + mine);
  if (area) return { kind: "open", el: area };
  return null;
}

document.addEventListener("pointermove", ev => {
  if (!drag || ev.pointerId !== drag.id) return;
  const dx = ev.clientX - drag.x0, dy = ev.clientY - drag.y0;
  if (!drag.ghost) {
    if (dx * dx + dy * dy < 64) return;
    const r = drag.el.getBoundingClientRect();
    drag.ghost = drag.el.cloneNode(true);
    drag.ghost.classList.add("ghost");
    drag.ghost.classList.remove("selected");
    drag.ghost.style.left = r.left + "px"; drag.ghost.style.top = r.top + "px";
    drag.ox = drag.x0 - r.left; drag.oy = drag.y0 - r.top;
    document.body.append(drag.ghost);
    drag.el.classList.add("dragging");
    document.body.classList.add("is-dragging");
  }
  drag.ghost.style.left = (ev.clientX - drag.ox) + "px";
  drag.ghost.style.top = (ev.clientY - drag.oy) + "px";
  document.querySelectorAll(".drop-over").forEach(e => e.classList.remove("drop-over"));
  const t = dropTarget(ev.clientX, ev.clientY);
  if (t) t.el.classList.add("drop-over");
  ev.preventDefault();
});

function endDrag(ev, cancel) {
  if (!drag || ev.pointerId !== drag.id) return;
  const d = drag;
  drag = null;
  if (!d.ghost) return; // a tap or a click: the click handler selects
  d.ghost.remove();
  document.body.classList.remove("is-dragging");
  document.querySelectorAll(".drop-over").forEach(e => e.classList.remove("drop-over"));
  d.el.classList.remove("dragging");
  dragJustEnded = true;
  setTimeout(() => { dragJustEnded = false; }, 0);
  if (cancel || !view || watch) return;
  const t = dropTarget(ev.clientX, ev.clientY);
  if (!t) return;
  const card = order[d.pos];
  if (t.kind === "reorder") { if (t.pos !== d.pos) moveInHand(d.pos, t.pos > d.pos ? t.pos + 1 : t.pos); return; }
  if (!myTurnNow()) { setMessage("Wait for your turn.", "info"); return; }
  if (t.kind === "discard") playDiscard(card);
  else if (t.kind === "add") playAdd(card, t.slot);
  else if (t.kind === "open") {
    const cards = selected.includes(d.pos) ? selectedCards() : selectedCards().concat([card]);
    if (cards.length >= 3) playOpen(cards);
    else setMessage("Select the cards of the meld, then drag one of them onto your team's melds.", "info");
  }
}
document.addEventListener("pointerup", ev => endDrag(ev, false));
document.addEventListener("pointercancel", ev => endDrag(ev, true));

// ------------------------------------------------------------------ animating a move
function rectOf(sel) { const el = document.querySelector(sel); return el ? el.getBoundingClientRect() : null; }

function seatRect(p) {
  if (view && !watch && p === view.seat) return rectOf("#hand");
  return rectOf("#seats .seat[data-seat='" + p + "']");
}

function fly(cardId, from, to, delay) {
  if (!from || !to) return;
  const el = cardId === null ? backEl(false) : cardEl(cardId);
  el.classList.add("flying");
  const x0 = from.left + from.width / 2, y0 = from.top + from.height / 2;
  const x1 = to.left + to.width / 2, y1 = to.top + to.height / 2;
  el.style.left = x0 + "px"; el.style.top = y0 + "px";
  document.body.append(el);
  const ms = animMs();
  const anim = el.animate([
    { transform: "translate(-50%, -50%) scale(0.9)", opacity: 0.95 },
    { transform: "translate(calc(-50% + " + (x1 - x0) + "px), calc(-50% + " + (y1 - y0) + "px)) scale(1)", opacity: 1 },
  ], { duration: ms, delay: delay || 0, easing: "ease-out", fill: "both" });
  anim.onfinish = () => el.remove();
  anim.oncancel = () => el.remove();
}

// the move(s) between two views of one game, drawn as cards flying from the seat
function animateChange(prev, v) {
  if (v.hand_number !== prev.hand_number) return; // a new deal: nothing flies
  const actor = prev.to_act;
  if (actor === null || actor === undefined) return;
  const seat = seatRect(actor);
  const stock = rectOf("#stock"), pile = rectOf("#pile");
  let k = 0;
  const next = () => (k++) * animMs() * 0.35;
  if (v.pile.length < prev.pile.length) fly(prev.pile[prev.pile.length - 1], pile, seat, next()); // took the pile
  else if (v.stock < prev.stock) {
    const mine = actor === v.seat && !watch;
    const got = mine ? minus(mySeat(v).hand || [], mySeat(prev).hand || []) : [];
    fly(got.length === 1 ? got[0] : null, stock, seat, next());
  }
  for (let t = 0; t < 2; t++) {
    v.melds[t].forEach(m => {
      const before = prev.melds[t].find(x => x.slot === m.slot);
      const added = minus(m.cards.map(x => x.card), before ? before.cards.map(x => x.card) : []);
      const target = rectOf("#melds-" + t + " .meld[data-slot='" + m.slot + "']");
      added.forEach(c => fly(c, seat, target, next()));
    });
  }
  for (let t = 0; t < 2; t++) {
    v.muertos[t].forEach((m, i) => {
      const before = prev.muertos[t][i];
      if (before && !before.taken && m.taken) fly(null, rectOf("#muertos .pack[data-team='" + t + "']") || stock, seat, next());
    });
  }
  if (v.pile.length === prev.pile.length + 1) fly(v.pile[v.pile.length - 1], seat, pile, next()); // discarded
}

// ------------------------------------------------------------------ the table
function statusLine(v) {
  let text;
  if (v.over) text = [h("span", { class: "who" }, "Game over: "), v.result.text];
  else if (v.seat !== undefined && v.to_act === v.seat) text = [h("span", { class: "who" }, "Your turn"), " · " + v.phase_text];
  else text = [h("span", { class: "who" }, seatName(v.to_act, v)), " to act · " + v.phase_text];
  const hand = "hand " + v.hand_number + (v.episode === "match" ? " of a match to " + v.target : "") + " · turn " + v.turn;
  return h("div", { class: "status-line", id: "status" }, ...text, h("span", { class: "dim" }, "  ·  " + v.variant + ", " + v.num_players + " players, " + hand));
}

function seatsEl(v, allHands) {
  const own = allHands ? null : v.seat; // playing: one's own hand is drawn below the table
  const last = markBase && turnBase && !allHands ? lastActor(v) : null;
  const moves = lastMoves(v);
  return h("div", { class: "seats" + (allHands ? " all-hands" : ""), id: "seats" }, v.seats.map(s => {
    if (s.seat === own) return null;
    const box = h("div", { class: "seat" + (s.to_act ? " to-act" : "") + (s.seat === last ? " last-actor" : ""), "data-seat": s.seat },
      h("div", { class: "name" }, seatName(s.seat, v) + (!allHands && s.team === v.seat % 2 ? " · partner" : "")),
      h("div", {}, "team " + s.team + " · " + s.cards + (s.cards === 1 ? " card" : " cards")));
    if (s.hand) box.append(h("div", { class: "cards" }, s.hand.map(c => cardEl(c, { small: true }))));
    else box.append(h("div", { class: "cards backs" }, Array.from({ length: Math.min(s.cards, 8) }, () => backEl(true))));
    if (s.known && s.known.length) box.append(h("div", { class: "known" }, "known in hand: " + cardsText(s.known)));
    box.append(lastMoveEl(s.seat, moves));
    return box;
  }));
}

// each seat's last move of the hand now played, in the log's words (seat -> text): play
// reads the log (a hand's end is an entry of no seat), Watch the moves up to its step
function lastMoves(v) {
  const out = {};
  let entries;
  if (watch) {
    const start = Math.max(0, ...(v.hand_starts || []).filter(s => s <= v.step));
    entries = v.moves_played.slice(start, v.step);
  } else {
    const log = v.log || [];
    let k = log.length;
    while (k > 0 && log[k - 1].seat !== null && log[k - 1].seat !== undefined) k--;
    entries = log.slice(k);
  }
  for (const e of entries) out[e.seat] = e.text;
  return out;
}

function lastMoveEl(seat, moves) {
  const text = moves[seat];
  return h("div", { class: "last-move", "data-seat": seat, title: text || null }, text ? "last: " + text : "no move yet this hand");
}

// the seat whose turn ended last (its cards on the table are marked)
function lastActor(v) {
  const log = v.log || [];
  for (let k = log.length - 1; k >= 0; k--) {
    const e = log[k];
    if (e.seat === null || e.seat === undefined) return null;
    if (e.seat !== v.to_act) return e.seat;
  }
  return null;
}

function muertosEl(v) {
  return h("div", { class: "muertos", id: "muertos" }, h("h3", {}, "Muertos"),
    v.muertos.map((packets, t) => h("div", { class: "packet", "data-team": t }, h("span", { class: "team-name" }, "team " + t + ": "),
      packets.length ? packets.map(p => p.taken
        ? h("span", { class: "taken", title: p.text }, p.text)
        : h("span", { class: "pack", "data-team": t, title: "a muerto, face down (" + p.text + ")" }, backEl(true), backEl(true)))
        : "none")));
}

function middleEl(v, one, myTurn) {
  const top = v.pile.length ? v.pile[v.pile.length - 1] : null;
  const canTake = myTurn && movesOf("take_pile").length > 0;
  const canDraw = myTurn && (movesOf("draw").length > 0 || movesOf("peek_reject").length > 0);
  const pileFresh = markBase && v.pile.length > markBase.pile && !watch;
  const pileBox = h("div", { class: "stack pile" + (one !== null && myTurn ? " target" : "") + (canTake && one === null ? " takeable" : ""), id: "pile",
    title: one !== null ? "discard the selected card" : canTake ? "take the discard pile (T)" : "the discard pile",
    onclick: clickPile },
    top === null ? h("div", { class: "card empty" }) : cardEl(top, { cls: pileFresh ? "fresh" : "" }),
    h("div", { class: "count" }, "pile " + v.pile.length));
  const toggleBtn = v.pile.length > 1 ? h("button", { id: "pile-toggle", onclick: () => { showPile = !showPile; rerender(); } }, showPile ? "hide the pile" : "show the pile") : null;
  const pileList = showPile && v.pile.length ? h("div", { class: "pile-list cards", id: "pile-cards" }, v.pile.slice().reverse().map(c => cardEl(c, { small: true }))) : null;
  const peek = v.peek_card !== null ? h("div", { class: "stack" + (myTurn ? " takeable" : ""), id: "peek", title: "keep the peeked card (K)",
    onclick: () => { if (myTurnNow()) playKind("peek_keep"); } }, cardEl(v.peek_card), h("div", { class: "count" }, "peeked card")) : null;
  const barred = v.no_discard !== null ? h("div", { class: "packet" }, "may not discard " + cardText(v.no_discard) + " this turn") : null;
  return h("div", { class: "middle panel" },
    h("div", { class: "stack" + (canDraw ? " takeable" : ""), id: "stock", title: canDraw ? "draw from the stock (D)" : "the stock", onclick: clickStock },
      backEl(false), h("div", { class: "count" }, "stock " + v.stock)),
    pileBox, peek, h("div", { class: "middle-info" }, muertosEl(v), barred, toggleBtn, pileList));
}

function runningEl(v, t) {
  const r = v.running && v.running[t];
  if (!r) return null;
  const parts = [h("span", { class: "pts", title: "table cards " + r.table_cards + ", canasta bonuses " + r.canasta_bonus + " (the engine's scoring, the hand cards left out)" }, r.total + " pts")];
  if (r.clean_canastas) parts.push(h("span", { class: "badge clean", title: "clean canastas" }, r.clean_canastas + " clean"));
  if (r.dirty_canastas) parts.push(h("span", { class: "badge dirty", title: "dirty canastas" }, r.dirty_canastas + " dirty"));
  if (r.to_open !== null) parts.push(h("span", { class: "badge open-need", title: "opening minimum " + r.minimum }, r.to_open + " to open"));
  return h("span", { class: "running", id: "running-" + t }, parts);
}

function freshCards(t, m) {
  if (!markBase || watch || markBase.hand !== view.hand_number) return [];
  const before = (markBase.melds[t] || [])[m.slot] || [];
  return minus(m.cards.map(x => x.card), before);
}

function teamsEl(v, addSlots, one, myTurn) {
  const me = v.seat !== undefined ? v.seat : v.viewer;
  const mine = me === null ? -1 : me % 2;
  return h("div", { class: "teams" }, [0, 1].map(t => {
    const title = "Team " + t + (t === mine ? " (your team)" : "") +
      (v.opened ? (v.opened[t] ? " · opened" : " · not opened") : "");
    return h("div", { class: "melds panel" + (t === mine && myTurn ? " mine-melds" : ""), id: "melds-" + t }, h("h3", {}, title, runningEl(v, t)),
      v.melds[t].length ? v.melds[t].map(m => {
        const canAdd = t === mine && addSlots.has(m.slot);
        const click = t === mine && myTurn && one !== null;
        const fresh = freshCards(t, m);
        const kind = m.canasta ? (m.clean ? " canasta clean" : " canasta dirty") : "";
        return h("div", { class: "meld" + kind + (m.closed ? " closed" : "") + (canAdd ? " can-add" : "") + (click ? " clickable" : ""),
          "data-team": t, "data-slot": m.slot, title: m.wild_text || null,
          onclick: click ? () => playAdd(one, m.slot) : null },
          h("div", { class: "cards" }, m.cards.map(x => {
            const k = fresh.indexOf(x.card);
            if (k >= 0) fresh.splice(k, 1);
            return cardEl(x.card, { small: true, wild: x.wild, standsFor: x.stands_for, cls: k >= 0 ? "fresh" : "" });
          })),
          h("div", { class: "meld-label" }, "[" + m.slot + "] " + m.label),
          m.wild_text ? h("div", { class: "meld-wild" }, m.wild_text) : null);
      }) : h("div", { class: "dim" }, "none"));
  }));
}

function scoresEl(v) {
  const rows = [];
  if (v.running) rows.push(h("div", { id: "running-total" }, "on the table now: team 0 " + v.running[0].total + " · team 1 " + v.running[1].total));
  if (v.episode === "match") rows.push(h("div", {}, "match points: team 0 " + v.match_points[0] + " · team 1 " + v.match_points[1] + " (to " + v.target + ")"));
  if (v.last_hand) rows.push(h("div", {}, "last hand (" + v.last_hand.number + "): team 0 " + v.last_hand.scores[0] + " · team 1 " + v.last_hand.scores[1]));
  if (!rows.length) rows.push(h("div", { class: "dim" }, "no hand scored yet"));
  const extra = [];
  if (!watch && v.last_hand) extra.push(h("button", { id: "show-summary", onclick: () => openSummary(true) }, "score details"));
  return h("div", { class: "scores panel", id: "scores" }, h("h3", {}, "Scores"), rows, extra);
}

function logEl(entries, current) {
  const items = entries.map((e, k) => h("li", {
    class: (e.seat === null || e.seat === undefined ? "hand-end" : "") + (current !== null && k === current - 1 ? " current" : ""),
    "data-step": k + 1,
    onclick: watch ? () => goStep(k + 1) : null,
  }, e.seat === null || e.seat === undefined ? e.text : "P" + e.seat + " (" + e.who + "): " + e.text,
    e.thinking && !watch ? h("button", { class: "why", "data-move": e.move, title: "how the bot weighed this move", onclick: () => showThinkingOf(e.move) }, "why?") : null));
  const box = h("div", { class: "log panel", id: "log" }, h("h3", {}, "Moves"), items.length ? h("ol", {}, items) : h("div", { class: "dim" }, "no moves yet"));
  setTimeout(() => { // scroll the list only (never the page) to the latest or current move
    const cur = box.querySelector("li.current");
    box.scrollTop = cur ? Math.max(0, cur.offsetTop - box.clientHeight / 2) : box.scrollHeight;
  }, 0);
  return box;
}

function rerender() { if (watch) renderWatch(); else if (view) renderPlay(); }

// ------------------------------------------------------------------ help
const KEYS_PLAY = [
  ["D", "draw from the stock (in a peek: reject the peeked card and draw the next)"],
  ["T", "take the discard pile"],
  ["K", "keep the peeked card"],
  ["1 … 9, 0", "select or unselect the hand's 1st … 9th, 10th card"],
  ["X or Enter", "discard the selected card"],
  ["M", "meld the selected cards"],
  ["Esc", "clear the selection (and close this panel or the drawer)"],
  ["S / R", "sort the hand by suit / by rank"],
  ["F", "skip to my turn (the bots play without pause)"],
  ["L", "the moves and scores (a drawer on small screens)"],
  ["H", "a hint: what Expert would play in your seat"],
  ["?", "this panel"],
];
const KEYS_WATCH = [
  ["→ / ←", "one move forward / back"],
  ["Home / End", "the deal / the end"],
  ["Space", "auto-play on or off"],
  ["N", "the next hand"],
  ["T", "the next turn of the chosen seat"],
];
const GESTURES = [
  "Click (tap) a card to select it; click the stock to draw, the pile to take it; click the peeked card to keep it.",
  "With a card selected, click a glowing meld to add it, or the pile to discard it; double-click a card to discard it.",
  "Drag a card onto one of your team's melds (add), onto the pile (discard), onto your team's melds area with the meld's cards selected (open), or onto another card of your hand (reorder). Drag works with a finger too.",
  "Every gesture sends the same legal move as the buttons: the engine decides, and a refused move shows its reason.",
];

function toggleHelp() {
  const old = document.getElementById("help");
  if (old) { old.remove(); return; }
  const rows = list => h("table", {}, list.map(([k, t]) => h("tr", {}, h("td", {}, h("kbd", {}, k)), h("td", {}, t))));
  document.body.append(h("div", { class: "overlay", id: "help", onclick: ev => { if (ev.target.id === "help") toggleHelp(); } },
    h("div", { class: "summary help" },
      h("h2", {}, "Keys and gestures"),
      h("h3", {}, "Playing"), rows(KEYS_PLAY),
      h("h3", {}, "Watching a record"), rows(KEYS_WATCH),
      h("h3", {}, "Mouse and touch"), h("ul", {}, GESTURES.map(g => h("li", {}, g))),
      h("button", { class: "primary", id: "help-close", onclick: toggleHelp }, "Close"))));
}

// ------------------------------------------------------------------ end of a hand
function maybeSummary() {
  if (watch || !view || summaryShown) return;
  // a hand has ended since the person last closed a summary (the last hand too)
  if (view.hands_ended > seenHands()) openSummary(false);
}

function scoreTable(teams) {
  const head = h("tr", {}, h("th", {}, "score item"), teams.map(t => h("th", {}, "team " + t.team)));
  const rows = teams[0].items.map((item, k) => h("tr", { "data-item": item.name }, h("td", {}, item.text), teams.map(t => h("td", {}, String(t.items[k].points)))));
  const total = h("tr", { class: "total" }, h("td", {}, "hand total"), teams.map(t => h("td", {}, String(t.total))));
  return h("table", { id: "score-table" }, head, rows, total);
}

function openSummary(onRequest) {
  const v = view;
  if (!v.last_hand) return;
  summaryShown = true;
  skipping = false;
  clearTimeout(botTimer);
  const done = () => {
    summaryShown = false;
    sessionStorage.setItem("burako-seen-" + v.id, String(v.hands_ended));
    document.getElementById("overlay")?.remove();
    scheduleBot();
  };
  const buttons = [];
  const status = h("div", { id: "save-status", class: "message" });
  if (v.over) {
    if (options.can_save) buttons.push(h("button", { class: "primary", id: "save", onclick: () => saveGame(status) }, v.saved_as ? "saved as " + v.saved_as : "Save the game as a record"));
    buttons.push(h("a", { href: "/api/games/" + encodeURIComponent(v.id) + "/record", download: "game-" + v.id + ".jsonl", id: "download" }, h("button", { type: "button" }, "Download the record")));
    buttons.push(h("button", { id: "new-game", onclick: () => { done(); location.hash = "#/"; } }, "New game"));
    buttons.push(h("button", { id: "close-summary", onclick: done }, "Look at the table"));
  } else {
    buttons.push(h("button", { class: "primary", id: "next-hand", onclick: done }, onRequest ? "Close" : "Play the next hand"));
  }
  const mine = v.seat % 2;
  let verdict = "";
  if (v.over) verdict = v.result.winner < 0 ? "A tie." : (v.result.winner === mine ? "Your team wins." : "Your team loses.");
  const lines = [h("h2", {}, v.over ? "Game over" : "Hand " + v.last_hand.number + " is over")];
  if (v.over) lines.push(h("p", { id: "result" }, v.result.text + ". " + verdict));
  if (v.over && v.seed !== null) lines.push(h("p", { id: "deal-seed" }, "Deal seed " + v.seed + " (the same seed deals the same cards)."));
  if (v.episode === "match") lines.push(h("p", {}, "Match points: team 0 " + v.match_points[0] + ", team 1 " + v.match_points[1] + " (to " + v.target + ")."));
  lines.push(...handEndEl(v));
  lines.push(h("h3", {}, "Hand " + v.last_hand.number + ", every score item"), scoreTable(v.last_hand.teams));
  document.getElementById("overlay")?.remove();
  document.body.append(h("div", { class: "overlay", id: "overlay" }, h("div", { class: "summary", id: "summary" }, lines, h("div", { class: "buttons" }, buttons), status)));
}

// the hand as it ended (the server's ``hand_end``; a match has dealt the next one): who
// went out, both teams' melds and every hand, laid down as at a real table to count them
function handEndEl(v) {
  const e = v.hand_end;
  if (!e || e.number !== v.last_hand.number) return [];
  const who = e.went_out ? seatName(e.went_out.seat, v) + " went out (team " + e.went_out.team + ")."
                         : "Nobody went out: " + e.reason + ".";
  const teams = [0, 1].map(t => h("div", { class: "end-team", "data-team": t }, h("h4", {}, "Team " + t),
    e.melds[t].length ? e.melds[t].map(m => h("div", { class: "meld" + (m.canasta ? (m.clean ? " canasta clean" : " canasta dirty") : ""), title: m.wild_text || null },
      h("div", { class: "cards" }, m.cards.map(x => cardEl(x.card, { small: true, wild: x.wild, standsFor: x.stands_for }))),
      m.wild_text ? h("div", { class: "meld-wild" }, m.wild_text) : null))
      : h("div", { class: "dim" }, "no melds")));
  const hands = v.seats.map(s => h("div", { class: "end-hand", "data-seat": s.seat }, h("span", { class: "name" }, seatName(s.seat, v) + ": "),
    e.hands[s.seat].length ? h("span", { class: "cards" }, e.hands[s.seat].map(c => cardEl(c, { small: true }))) : "no cards left"));
  return [h("p", { id: "went-out" }, who),
    h("h3", {}, "The table at the end of hand " + e.number), h("div", { class: "end-table", id: "end-table" }, teams),
    h("h3", {}, "Every hand"), h("div", { class: "end-hands", id: "end-hands" }, hands)];
}

async function saveGame(status) {
  const res = await api("POST", "/api/games/" + encodeURIComponent(view.id) + "/save");
  if (!res.ok) { status.textContent = res.error; status.className = "message error"; return; }
  view = res.data.view;
  status.textContent = res.data.message;
  status.className = "message info";
  const btn = document.getElementById("save");
  if (btn) btn.textContent = "saved as " + res.data.file;
}

// ------------------------------------------------------------------ watching
async function showRecordFiles() {
  app.replaceChildren(h("p", { class: "loading" }, "Listing the records…"));
  const res = await api("GET", "/api/records");
  if (!res.ok) { app.replaceChildren(h("div", { id: "message", class: "message error" }, res.error)); return; }
  const files = res.data.files;
  const box = h("div", { class: "panel" }, h("h2", {}, "Recorded games"));
  if (!res.data.folder) box.append(h("p", {}, "This server was started without a records folder (burako serve --records DIR)."));
  else if (!files.length) box.append(h("p", {}, "No record files (*.jsonl) in the records folder yet: save a finished game, or start the server with --records DIR."));
  const list = h("ul", { class: "files", id: "files" }, files.map(f => h("li", {},
    h("a", { href: "#", "data-file": f.file, onclick: ev => { ev.preventDefault(); showGames(f.file, list); } }, f.file), " (" + f.bytes + " bytes)")));
  box.append(list, h("div", { id: "games" }), h("div", { id: "message", class: "message" }));
  const mine = h("div", { class: "panel", id: "history" });
  app.replaceChildren(mine, box);
  showHistory(mine);
}

// the browser's games as the server keeps them (its database): resume one, see the tally
async function showHistory(panel) {
  const res = await api("GET", "/api/history");
  if (!res.ok || !res.data.kept) { panel.remove(); return; }
  const games = res.data.games;
  panel.append(h("h2", {}, "Your games"));
  if (!games.length) { panel.append(h("p", {}, "None yet: the games you play here are kept, and listed here.")); return; }
  panel.append(h("ul", { class: "files", id: "history-games" }, games.map(g => h("li", {},
    h("a", { href: "#/play/" + g.id, "data-game": g.id, "data-joined": String(g.joined) },
      historyTable(g) + ": " +
      (g.over ? (g.result === "tie" ? "a tie" : "you " + g.result) + " (" + (g.margin >= 0 ? "+" : "") + g.margin + ")" : "in play, " + g.moves + " moves: resume") +
      (g.canastas ? ", your canastas: " + g.canastas.clean + " clean, " + g.canastas.dirty + " dirty" : ""))))));
  const stats = res.data.stats;
  if (stats && stats.by_bots.length) {
    panel.append(h("table", { class: "scores", id: "history-stats" },
      h("tr", {}, ["against", "games", "won", "lost", "tied", "average margin", "clean canastas (per game)", "dirty canastas (per game)"].map(t => h("th", {}, t))),
      stats.by_bots.map(e => h("tr", {}, [e.bots, e.games, e.won, e.lost, e.tied, e.margin,
        e.clean_canastas + (e.clean_per_game === null ? "" : " (" + e.clean_per_game + ")"),
        e.dirty_canastas + (e.dirty_per_game === null ? "" : " (" + e.dirty_per_game + ")")].map(t => h("td", {}, String(t)))))),
      h("p", {}, "Time played: " + Math.round(stats.seconds / 60) + " minutes."));
  }
}

// a kept game's table in words: a joined game says the seat its link gave, a table with
// friends how many, as the list reads "your" (result, canastas) from that seat's side
function historyTable(g) {
  const friends = (g.people || [g.seat]).length - 1;
  return [g.variant, g.players + " players",
    g.joined ? "you at P" + g.seat + " (joined with a link)" : null,
    friends ? (friends === 1 ? "a friend" : friends + " friends") : null,
    g.bots.length ? "against " + g.bots.join(", ") : null].filter(Boolean).join(", ");
}

async function showGames(file) {
  const target = document.getElementById("games");
  const res = await api("GET", "/api/records/games?file=" + encodeURIComponent(file));
  if (!res.ok) { setMessage(res.error, "error"); return; }
  target.replaceChildren(h("h3", {}, file), h("ul", { class: "files" }, res.data.games.map(g => h("li", {},
    g.error ? h("span", { class: "bad" }, "game " + g.game + " (line " + g.line + "): " + g.error)
            : h("a", { href: "#/watch?" + new URLSearchParams({ file, game: g.game, step: 0, viewer: "all" }), "data-game": g.game }, "game " + g.game + ": " + g.header)))));
}

let watchLoading = false;

async function openRecord(file, game, step, viewer) {
  watch = Object.assign(watch || {}, { file, game, step, viewer });
  watchLoading = true;
  const res = await api("GET", "/api/records/view?" + new URLSearchParams({ file, game, step, viewer }));
  watchLoading = false;
  if (!watch) return;
  if (!res.ok) {
    stopAuto();
    app.replaceChildren(h("div", { class: "panel" }, h("div", { id: "message", class: "message error" }, res.error),
      h("p", {}, h("a", { href: "#/watch" }, "Back to the recorded games"))));
    return;
  }
  const prev = view && view.file === file && view.game === game ? view : null;
  view = res.data;
  renderWatch();
  if (prev && animMs() > 0 && view.step === prev.step + 1) animateChange(prev, view);
}

function goStep(step) {
  if (!watch || !view) return;
  step = Math.max(0, Math.min(view.steps, step));
  history.replaceState(null, "", "#/watch?" + new URLSearchParams({ file: watch.file, game: watch.game, step, viewer: watch.viewer }));
  return openRecord(watch.file, watch.game, step, watch.viewer);
}

// the first step after ``step`` at which ``seat`` begins a turn
function nextTurnOf(v, seat, step) {
  const moves = v.moves_played;
  for (let k = step + 1; k < moves.length; k++) {
    if (moves[k].seat === seat && (k === 0 || moves[k - 1].seat !== seat)) return k;
  }
  return null;
}

function nextHandStart(v, step) {
  return (v.hand_starts || []).find(s => s > step) ?? null;
}

function watchSpeed() { return Math.min(20, Math.max(1, +(localStorage.getItem("burako-watch-speed") || 4))); }

function stopAuto() { clearTimeout(autoPlay); autoPlay = null; const b = document.getElementById("auto"); if (b) b.textContent = "▶ play"; }

function startAuto() {
  if (!watch || !view) return;
  const tick = async () => {
    if (!watch || !view) { autoPlay = null; return; }
    if (view.step >= view.steps) { stopAuto(); return; }
    if (!watchLoading) await goStep(view.step + 1);
    if (autoPlay !== null) autoPlay = setTimeout(tick, 1000 / watchSpeed());
  };
  autoPlay = setTimeout(tick, 0);
  const b = document.getElementById("auto"); if (b) b.textContent = "❚❚ pause";
}

function toggleAuto() { if (autoPlay !== null) stopAuto(); else startAuto(); }

function replayCommand(v) {
  return "burako replay " + shellQuote(watch.file) + " --game " + watch.game + (watch.viewer !== "all" ? " --viewer " + watch.viewer : "") + " --step";
}
function shellQuote(s) { return /^[\w./-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'"; }

function renderWatch() {
  const v = view;
  const seatSel = h("select", { id: "viewer" }, h("option", { value: "all", selected: watch.viewer === "all" }, "every hand open"),
    Array.from({ length: v.num_players }, (_, p) => h("option", { value: p, selected: watch.viewer === String(p) }, "as P" + p + " (" + v.names[p] + ") sees it")));
  seatSel.addEventListener("change", () => { watch.viewer = seatSel.value; goStep(v.step); });
  const last = v.step > 0 ? v.moves_played[v.step - 1] : null;
  if (watch.turnSeat === undefined || watch.turnSeat >= v.num_players) watch.turnSeat = 0;
  const turnSel = h("select", { id: "turn-seat", title: "the seat whose next turn T jumps to" },
    Array.from({ length: v.num_players }, (_, p) => h("option", { value: p, selected: p === watch.turnSeat }, "P" + p + " (" + v.names[p] + ")")));
  turnSel.addEventListener("change", () => { watch.turnSeat = +turnSel.value; });
  const nextTurn = nextTurnOf(v, watch.turnSeat, v.step);
  const nextHand = nextHandStart(v, v.step);
  const speed = h("input", { type: "range", id: "watch-speed", min: "1", max: "20", value: String(watchSpeed()), title: "moves a second" });
  const speedLabel = h("span", { id: "watch-speed-label" }, watchSpeed() + " moves/s");
  speed.addEventListener("input", () => { localStorage.setItem("burako-watch-speed", speed.value); speedLabel.textContent = speed.value + " moves/s"; });
  const controls = h("div", { class: "controls" },
    h("button", { id: "first", onclick: () => goStep(0), disabled: v.step === 0 }, "|◀ start"),
    h("button", { id: "back", onclick: () => goStep(v.step - 1), disabled: v.step === 0 }, "◀ back"),
    h("button", { id: "forward", class: "primary", onclick: () => goStep(v.step + 1), disabled: v.step === v.steps }, "forward ▶"),
    h("button", { id: "last", onclick: () => goStep(v.steps), disabled: v.step === v.steps }, "end ▶|"),
    h("span", { class: "counter", id: "counter" }, "move " + v.step + " / " + v.steps),
    seatSel);
  const controls2 = h("div", { class: "controls" },
    h("button", { id: "auto", class: "primary", onclick: toggleAuto, disabled: v.step === v.steps && autoPlay === null }, autoPlay !== null ? "❚❚ pause" : "▶ play"),
    h("label", {}, "speed ", speed, " ", speedLabel),
    h("button", { id: "next-hand-jump", onclick: () => { stopAuto(); goStep(nextHand); }, disabled: nextHand === null }, "next hand »"),
    h("span", { class: "turn-jump" }, h("button", { id: "next-turn", onclick: () => { stopAuto(); goStep(nextTurnOf(v, watch.turnSeat, v.step)); }, disabled: nextTurn === null }, "next turn of"), " ", turnSel),
    thinkToggle("how a recorded Expert or Hard seat weighs its move here (it decides again)"));
  const cmd = replayCommand(v);
  const cmdBox = h("input", { id: "replay-cmd", readonly: true, value: cmd, onclick: ev => ev.target.select() });
  const info = h("div", { class: "record-info panel", id: "record-info" },
    h("div", { id: "record-header" }, v.header),
    h("div", { id: "record-seats" }, "seed " + v.seed + " · seats " + v.names.map((n, p) => "P" + p + " " + n).join(", ")),
    h("div", { class: "cmd" }, cmdBox, h("button", { id: "copy-cmd", onclick: () => copyText(cmd) }, "copy")),
    h("div", { class: "dim small" }, "the file's path is relative to the server's records folder"));
  const lastMove = h("div", { class: "status-line", id: "last-move" }, last ? "P" + last.seat + " (" + last.who + "): " + last.text : "the deal, before the first move");
  const board = [info, controls, controls2, lastMove, statusLine(v), h("div", { id: "think-slot" }), seatsEl(v, true), middleEl(v, null, false), teamsEl(v, new Set(), null, false)];
  if (v.over && v.last_hand) board.push(h("div", { class: "panel" }, h("h3", {}, v.result.text), scoreTable(v.last_hand.teams)));
  app.replaceChildren(h("div", { class: "table watch", id: "table", "data-step": v.step },
    h("div", { class: "board" }, board,
      h("div", { class: "toolbar" }, h("button", { id: "log-toggle", class: "drawer-open-btn", onclick: () => setDrawer(!drawerOpen) }, "moves ☰"),
        h("button", { id: "help-btn", onclick: toggleHelp }, "?"))),
    h("aside", { class: "side", id: "side" },
      h("button", { class: "drawer-close", id: "drawer-close", onclick: () => setDrawer(false) }, "close ✕"),
      scoresEl(v), logEl(v.moves_played, v.step))));
  refreshThinking();
}

async function copyText(text) {
  try { await navigator.clipboard.writeText(text); setFlash("copied"); }
  catch (err) { const el = document.getElementById("replay-cmd"); if (el) { el.select(); document.execCommand?.("copy"); } setFlash("selected: copy it with Ctrl+C"); }
}
function setFlash(text) { const b = document.getElementById("copy-cmd"); if (b) { b.textContent = text; setTimeout(() => { b.textContent = "copy"; }, 1500); } }

// ------------------------------------------------------------------ keys
document.addEventListener("keydown", ev => {
  const tag = ev.target.tagName;
  const key = ev.key;
  if (tag === "SELECT" || tag === "INPUT" || tag === "TEXTAREA" || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (tag === "BUTTON" && (key === "Enter" || key === " ")) return; // the button's own click
  if (key === "?") { toggleHelp(); ev.preventDefault(); return; }
  if (key === "Escape") {
    if (document.getElementById("help")) toggleHelp();
    else if (drawerOpen) setDrawer(false);
    else if (!watch && view) clearSelection();
    return;
  }
  if (!view || document.getElementById("overlay")) return;
  if (key === "l" || key === "L") { setDrawer(!drawerOpen); return; }
  if (watch) {
    if (key === "ArrowRight") goStep(view.step + 1);
    else if (key === "ArrowLeft") goStep(view.step - 1);
    else if (key === "Home") goStep(0);
    else if (key === "End") goStep(view.steps);
    else if (key === " ") { ev.preventDefault(); toggleAuto(); }
    else if (key === "n" || key === "N") { const s = nextHandStart(view, view.step); if (s !== null) goStep(s); }
    else if (key === "t" || key === "T") { const s = nextTurnOf(view, watch.turnSeat || 0, view.step); if (s !== null) goStep(s); }
    return;
  }
  const k = key.toLowerCase();
  if (k === "s") setSort("suit");
  else if (k === "r") setSort("rank");
  else if (k === "f") skipToMyTurn();
  else if (k === "h") askHint();
  else if (/^[0-9]$/.test(key)) { const i = key === "0" ? 9 : +key - 1; if (i < order.length) toggle(i); }
  else if (!myTurnNow()) return;
  else if (k === "d") clickStock();
  else if (k === "t") playKind("take_pile");
  else if (k === "k") playKind("peek_keep");
  else if (k === "x" || key === "Enter") { const c = selectedCards(); if (c.length === 1) { ev.preventDefault(); playDiscard(c[0]); } }
  else if (k === "m") { const c = selectedCards(); if (c.length >= 2) playOpen(c); }
});

// ------------------------------------------------------------------ start
async function boot() {
  const res = await api("GET", "/api/options");
  if (!res.ok) { app.replaceChildren(h("div", { class: "message error" }, "cannot load the table: " + res.error)); return; }
  options = res.data;
  window.addEventListener("hashchange", route);
  route();
}
boot();
