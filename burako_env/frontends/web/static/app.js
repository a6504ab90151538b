// The Burako table in the browser: plain JavaScript, no build step, no outside assets.
// Every move offered comes from the server's list of the engine's legal actions (their ids,
// words and cards); the page never computes a rule or an action id itself.
"use strict";

const app = document.getElementById("app");
let options = null;      // /api/options: variants, bots, card faces, bot delay
let view = null;         // the table of the game being played or watched
let selected = [];       // positions in the hand of the selected cards
let busy = false;        // a request is on its way: clicks wait
let botTimer = null;
let showPile = false;
let message = { text: "", kind: "info" };
let summaryShown = false; // an end-of-hand summary is open: the bots wait
let watch = null;        // {file, game, step, viewer} while watching

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
  const el = h("div", { class: cls.filter(Boolean).join(" "), "data-card": id, title: cardText(id) + (extra.wild ? " (wild)" : "") },
    f.suit === "joker" ? [h("span", { class: "rank" }, "★"), h("span", { class: "suit" }, "JOKER")]
                       : [h("span", { class: "rank" }, f.rank), h("span", { class: "suit" }, f.symbol)]);
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

// ------------------------------------------------------------------ routing
function route() {
  clearTimeout(botTimer);
  view = null; watch = null; selected = []; showPile = false; summaryShown = false;
  setMessage("");
  const hash = location.hash || "#/";
  if (hash.startsWith("#/play/")) return openGame(decodeURIComponent(hash.slice(7)));
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
  const seed = h("input", { id: "seed", type: "number", min: "0", value: String(Math.floor(Math.random() * 100000)) });
  const hand = h("input", { type: "radio", name: "episode", value: "hand", id: "ep-hand", checked: true });
  const match = h("input", { type: "radio", name: "episode", value: "match", id: "ep-match" });
  const error = h("div", { id: "message", class: "message" });

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
  }
  function fillBots() {
    // the levels that play this table, by name; the default level (Hard where it plays)
    const n = +playersSel.value, seat = +seatSel.value;
    const v = options.variants.find(x => x.name === variantSel.value);
    const ids = v.levels[String(n)];
    const pick = ids.includes(allBots.value) ? allBots.value : v.default_level[String(n)];
    const levelOptions = chosen => options.levels.filter(l => ids.includes(l.id)).map(l => h("option", { value: l.id, title: l.text, selected: l.id === chosen }, l.name));
    allBots.replaceChildren(...levelOptions(pick));
    botsBox.replaceChildren(...Array.from({ length: n }, (_, p) => p).filter(p => p !== seat).map(p =>
      h("label", {}, "P" + p + " (team " + (p % 2) + ", " + (p % 2 === seat % 2 ? "your partner" : "opponent") + ") ",
        h("select", { class: "bot", "data-seat": p }, levelOptions(pick)))));
  }
  variantSel.addEventListener("change", fillPlayers);
  playersSel.addEventListener("change", fillSeats);
  seatSel.addEventListener("change", fillBots);
  allBots.addEventListener("change", () => botsBox.querySelectorAll("select.bot").forEach(s => { s.value = allBots.value; }));

  async function start(ev) {
    ev.preventDefault();
    if (busy) return;
    const body = {
      variant: variantSel.value, players: +playersSel.value, seat: +seatSel.value,
      bots: Array.from(botsBox.querySelectorAll("select.bot")).map(s => s.value),
      episode: match.checked ? "match" : "hand", seed: Math.max(0, Math.floor(+seed.value || 0)),
    };
    busy = true;
    error.textContent = "Dealing…"; error.className = "message info";
    const res = await api("POST", "/api/games", body);
    busy = false;
    if (!res.ok) { error.textContent = res.error; error.className = "message error"; return; }
    sessionStorage.setItem("burako-seen-" + res.data.id, "0");
    localStorage.setItem("burako-last-game", res.data.id);
    location.hash = "#/play/" + res.data.id;
  }

  const last = localStorage.getItem("burako-last-game");
  app.replaceChildren(h("form", { class: "setup panel", id: "setup", onsubmit: start },
    h("h2", {}, "A new game against the bots"),
    h("fieldset", {}, h("legend", {}, "Table"),
      h("label", {}, "Variant ", variantSel), h("label", {}, "Players ", playersSel), h("label", {}, "Your seat ", seatSel)),
    h("fieldset", {}, h("legend", {}, "Bots"), h("label", {}, "All bots ", allBots), botsBox),
    h("fieldset", {}, h("legend", {}, "Game"),
      h("label", {}, hand, " one hand"), h("label", {}, match, " a whole match"),
      h("label", {}, "Deal seed ", seed)),
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

function seenHands() { return +(sessionStorage.getItem("burako-seen-" + view.id) || 0); }

function setView(v) {
  const handChanged = !view || sortedKey(mySeat(view).hand || []) !== sortedKey(mySeat(v).hand || []);
  view = v;
  if (handChanged) selected = [];
  renderPlay();
  scheduleBot();
}

function mySeat(v) { return v.seats[v.seat]; }

function scheduleBot() {
  clearTimeout(botTimer);
  if (!view || watch || view.over || view.to_act === view.seat || summaryShown) return;
  const id = view.id;
  botTimer = setTimeout(async () => {
    if (!view || view.id !== id || busy) { scheduleBot(); return; }
    busy = true;
    const res = await api("POST", "/api/games/" + encodeURIComponent(id) + "/bot");
    busy = false;
    if (!view || view.id !== id) return;
    if (res.ok) setView(res.data);
    else setMessage(res.error, "error");
  }, options.bot_delay_ms);
}

async function sendMove(body) {
  if (busy || !view) return;
  busy = true;
  const res = await api("POST", "/api/games/" + encodeURIComponent(view.id) + "/move", body);
  busy = false;
  if (res.ok) { setMessage(""); selected = []; setView(res.data); }
  else setMessage(res.error, "error"); // the game is as it was: keep the table and selection
}

function selectedCards() {
  const hand = mySeat(view).hand || [];
  return selected.map(i => hand[i]);
}

function toggle(i) {
  const k = selected.indexOf(i);
  if (k >= 0) selected.splice(k, 1); else selected.push(i);
  setMessage("");
  renderPlay();
}

function movesOf(kind) { return view.moves.filter(m => m.kind === kind); }

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

  // the hand, sorted by suit then rank (the server sorts it)
  const hand = h("div", { class: "cards hand", id: "hand" }, (me.hand || []).map((c, i) =>
    cardEl(c, {
      cls: [selected.includes(i) ? "selected" : "", discards.has(c) ? "discardable" : "", addable.has(c) ? "addable" : ""].join(" "),
      onclick: () => toggle(i),
    })));

  // buttons: the moves that take no card choice, then those the selection makes
  const actions = h("div", { class: "actions", id: "actions" });
  if (myTurn) {
    for (const m of v.moves) {
      if (m.kind === "open" || m.kind === "add" || m.kind === "discard") continue;
      actions.append(h("button", { class: "primary", "data-kind": m.kind, "data-action": m.action, onclick: () => sendMove({ action: m.action }) }, m.text));
    }
    if (one !== null && discards.has(one)) {
      actions.append(h("button", { class: "primary", id: "discard", onclick: () => sendMove({ action: movesOf("discard").find(m => m.cards[0] === one).action }) }, "Discard " + cardText(one)));
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
    const hints = [];
    if (v.phase === "play") {
      hints.push(cards.length ? "Click one of your team's melds to add the selected card, the pile to discard it." :
        "Select cards in your hand: one to discard or add to a meld, three to open a meld.");
    }
    if (hints.length) actions.prepend(h("div", { class: "hint" }, hints.join(" ")));
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
      shown.map(m => h("div", { class: "option", title: m.text, "data-action": m.action, onclick: () => sendMove({ action: m.action }) },
        (m.meld || m.cards.map(c => ({ card: c, wild: null }))).map(x => cardEl(x.card, { small: true, wild: x.wild })))));
  }

  // data-state and data-moves let a script (the browser tests) wait for the next turn
  const state = v.over ? "over" : myTurn ? "my-turn" : "waiting";
  app.replaceChildren(h("div", { class: "table play", id: "table", "data-state": state, "data-moves": v.log.length },
    h("div", { class: "board" },
      statusLine(v),
      seatsEl(v, false),
      middleEl(v, one, myTurn),
      teamsEl(v, addSlots, one, myTurn),
      h("div", { class: "mine panel" },
        h("h3", {}, "Your hand, P" + v.seat + " (team " + (v.seat % 2) + "), " + me.cards + (me.cards === 1 ? " card" : " cards")),
        hand, actions, suggest,
        h("div", { id: "message", class: "message" }))),
    h("aside", { class: "side" }, scoresEl(v), logEl(v.log, null))));
  paintMessage();
  maybeSummary();
}

function statusLine(v) {
  let text;
  if (v.over) text = [h("span", { class: "who" }, "Game over: "), v.result.text];
  else if (v.seat !== undefined && v.to_act === v.seat) text = [h("span", { class: "who" }, "Your turn"), " · " + v.phase_text];
  else text = [h("span", { class: "who" }, seatName(v.to_act, v)), " to act · " + v.phase_text];
  const hand = "hand " + v.hand_number + (v.episode === "match" ? " of a match to " + v.target : "") + " · turn " + v.turn;
  return h("div", { class: "status-line", id: "status" }, ...text, h("span", { style: "opacity:0.7" }, "  ·  " + v.variant + ", " + v.num_players + " players, " + hand));
}

function seatsEl(v, allHands) {
  const own = allHands ? null : v.seat; // playing: one's own hand is drawn below the table
  return h("div", { class: "seats" + (allHands ? " all-hands" : ""), id: "seats" }, v.seats.map(s => {
    if (s.seat === own) return null;
    const box = h("div", { class: "seat" + (s.to_act ? " to-act" : ""), "data-seat": s.seat },
      h("div", { class: "name" }, seatName(s.seat, v) + (!allHands && s.team === v.seat % 2 ? " · partner" : "")),
      h("div", {}, "team " + s.team + " · " + s.cards + (s.cards === 1 ? " card" : " cards")));
    if (s.hand) box.append(h("div", { class: "cards" }, s.hand.map(c => cardEl(c, { small: true }))));
    else box.append(h("div", { class: "cards" }, Array.from({ length: Math.min(s.cards, 8) }, () => backEl(true))));
    if (s.known && s.known.length) box.append(h("div", { class: "known" }, "known in hand: " + cardsText(s.known)));
    return box;
  }));
}

function middleEl(v, one, myTurn) {
  const top = v.pile.length ? v.pile[v.pile.length - 1] : null;
  const pileBox = h("div", { class: "stack pile" + (one !== null && myTurn ? " target" : ""), id: "pile",
    title: one !== null ? "discard the selected card" : "the discard pile",
    onclick: () => { if (view && !watch && one !== null) sendMove({ kind: "discard", cards: [one] }); } },
    top === null ? h("div", { class: "card", style: "opacity:0.25" }) : cardEl(top),
    h("div", { class: "count" }, "pile " + v.pile.length));
  const toggleBtn = v.pile.length > 1 ? h("button", { id: "pile-toggle", onclick: () => { showPile = !showPile; rerender(); } }, showPile ? "hide the pile" : "show the pile") : null;
  const pileList = showPile && v.pile.length ? h("div", { class: "pile-list cards", id: "pile-cards" }, v.pile.slice().reverse().map(c => cardEl(c, { small: true }))) : null;
  const muertos = h("div", { class: "muertos" }, h("h3", {}, "Muertos"),
    v.muertos.map((packets, t) => h("div", { class: "packet" }, "team " + t + ": " + (packets.map(p => p.text).join(", ") || "none"))));
  const peek = v.peek_card !== null ? h("div", { class: "stack", id: "peek" }, cardEl(v.peek_card), h("div", { class: "count" }, "peeked card")) : null;
  const barred = v.no_discard !== null ? h("div", { class: "packet" }, "may not discard " + cardText(v.no_discard) + " this turn") : null;
  return h("div", { class: "middle panel" },
    h("div", { class: "stack", id: "stock" }, backEl(false), h("div", { class: "count" }, "stock " + v.stock)),
    pileBox, peek, h("div", {}, muertos, barred, toggleBtn, pileList));
}

function teamsEl(v, addSlots, one, myTurn) {
  const me = v.seat !== undefined ? v.seat : v.viewer;
  const mine = me === null ? -1 : me % 2;
  return h("div", { class: "teams" }, [0, 1].map(t => {
    const title = "Team " + t + (t === mine ? " (your team)" : "") + " melds" +
      (v.opened ? (v.opened[t] ? " · opened" : " · not opened") : "");
    return h("div", { class: "melds panel", id: "melds-" + t }, h("h3", {}, title),
      v.melds[t].length ? v.melds[t].map(m => {
        const canAdd = t === mine && addSlots.has(m.slot);
        const click = t === mine && myTurn && one !== null;
        return h("div", { class: "meld" + (m.canasta ? " canasta" : "") + (canAdd ? " can-add" : "") + (click ? " clickable" : ""),
          "data-team": t, "data-slot": m.slot,
          onclick: click ? () => sendMove({ kind: "add", cards: [one], slot: m.slot }) : null },
          h("div", { class: "cards" }, m.cards.map(x => cardEl(x.card, { small: true, wild: x.wild }))),
          h("div", { class: "meld-label" }, "[" + m.slot + "] " + m.label));
      }) : h("div", { style: "opacity:0.6" }, "none"));
  }));
}

function scoresEl(v) {
  const rows = [];
  if (v.episode === "match") rows.push(h("div", {}, "match points: team 0 " + v.match_points[0] + " · team 1 " + v.match_points[1] + " (to " + v.target + ")"));
  if (v.last_hand) rows.push(h("div", {}, "last hand (" + v.last_hand.number + "): team 0 " + v.last_hand.scores[0] + " · team 1 " + v.last_hand.scores[1]));
  if (!rows.length) rows.push(h("div", { style: "opacity:0.7" }, "no hand scored yet"));
  const extra = [];
  if (!watch && v.last_hand) extra.push(h("button", { id: "show-summary", onclick: () => openSummary(true) }, "score details"));
  return h("div", { class: "scores panel", id: "scores" }, h("h3", {}, "Scores"), rows, extra);
}

function logEl(entries, current) {
  const items = entries.map((e, k) => h("li", {
    class: (e.seat === null || e.seat === undefined ? "hand-end" : "") + (current !== null && k === current - 1 ? " current" : ""),
    "data-step": k + 1,
    onclick: watch ? () => goStep(k + 1) : null,
  }, e.seat === null || e.seat === undefined ? e.text : "P" + e.seat + " (" + e.who + "): " + e.text));
  const box = h("div", { class: "log panel", id: "log" }, h("h3", {}, "Moves"), items.length ? h("ol", {}, items) : h("div", { style: "opacity:0.7" }, "no moves yet"));
  setTimeout(() => { // scroll the list only (never the page) to the latest or current move
    const cur = box.querySelector("li.current");
    box.scrollTop = cur ? Math.max(0, cur.offsetTop - box.clientHeight / 2) : box.scrollHeight;
  }, 0);
  return box;
}

function rerender() { if (watch) renderWatch(); else if (view) renderPlay(); }

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
  if (v.episode === "match") lines.push(h("p", {}, "Match points: team 0 " + v.match_points[0] + ", team 1 " + v.match_points[1] + " (to " + v.target + ")."));
  lines.push(h("h3", {}, "Hand " + v.last_hand.number + ", every score item"), scoreTable(v.last_hand.teams));
  document.getElementById("overlay")?.remove();
  document.body.append(h("div", { class: "overlay", id: "overlay" }, h("div", { class: "summary", id: "summary" }, lines, buttons, status)));
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
  app.replaceChildren(box);
}

async function showGames(file) {
  const target = document.getElementById("games");
  const res = await api("GET", "/api/records/games?file=" + encodeURIComponent(file));
  if (!res.ok) { setMessage(res.error, "error"); return; }
  target.replaceChildren(h("h3", {}, file), h("ul", { class: "files" }, res.data.games.map(g => h("li", {},
    g.error ? h("span", { class: "bad" }, "game " + g.game + " (line " + g.line + "): " + g.error)
            : h("a", { href: "#/watch?" + new URLSearchParams({ file, game: g.game, step: 0, viewer: "all" }), "data-game": g.game }, "game " + g.game + ": " + g.header)))));
}

async function openRecord(file, game, step, viewer) {
  watch = { file, game, step, viewer };
  const res = await api("GET", "/api/records/view?" + new URLSearchParams({ file, game, step, viewer }));
  if (!res.ok) {
    app.replaceChildren(h("div", { class: "panel" }, h("div", { id: "message", class: "message error" }, res.error),
      h("p", {}, h("a", { href: "#/watch" }, "Back to the recorded games"))));
    return;
  }
  view = res.data;
  renderWatch();
}

function goStep(step) {
  if (!watch || !view) return;
  step = Math.max(0, Math.min(view.steps, step));
  history.replaceState(null, "", "#/watch?" + new URLSearchParams({ file: watch.file, game: watch.game, step, viewer: watch.viewer }));
  openRecord(watch.file, watch.game, step, watch.viewer);
}

function renderWatch() {
  const v = view;
  const seatSel = h("select", { id: "viewer" }, h("option", { value: "all", selected: watch.viewer === "all" }, "every hand open"),
    Array.from({ length: v.num_players }, (_, p) => h("option", { value: p, selected: watch.viewer === String(p) }, "as P" + p + " (" + v.names[p] + ") sees it")));
  seatSel.addEventListener("change", () => { watch.viewer = seatSel.value; goStep(v.step); });
  const last = v.step > 0 ? v.moves_played[v.step - 1] : null;
  const controls = h("div", { class: "controls" },
    h("button", { id: "first", onclick: () => goStep(0), disabled: v.step === 0 }, "|◀ start"),
    h("button", { id: "back", onclick: () => goStep(v.step - 1), disabled: v.step === 0 }, "◀ back"),
    h("button", { id: "forward", class: "primary", onclick: () => goStep(v.step + 1), disabled: v.step === v.steps }, "forward ▶"),
    h("button", { id: "last", onclick: () => goStep(v.steps), disabled: v.step === v.steps }, "end ▶|"),
    h("span", { class: "counter", id: "counter" }, "move " + v.step + " / " + v.steps),
    seatSel);
  const lastMove = h("div", { class: "status-line", id: "last-move" }, last ? "P" + last.seat + " (" + last.who + "): " + last.text : "the deal, before the first move");
  const board = [h("p", { style: "opacity:0.8;margin:0" }, v.header), controls, lastMove, statusLine(v), seatsEl(v, true), middleEl(v, null, false), teamsEl(v, new Set(), null, false)];
  if (v.over && v.last_hand) board.push(h("div", { class: "panel" }, h("h3", {}, v.result.text), scoreTable(v.last_hand.teams)));
  app.replaceChildren(h("div", { class: "table watch", id: "table", "data-step": v.step }, h("div", { class: "board" }, board), h("aside", {}, scoresEl(v), logEl(v.moves_played, v.step))));
}

document.addEventListener("keydown", ev => {
  if (!watch || !view || ev.target.tagName === "SELECT") return;
  if (ev.key === "ArrowRight") goStep(view.step + 1);
  else if (ev.key === "ArrowLeft") goStep(view.step - 1);
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
