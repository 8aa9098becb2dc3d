// The live page: one websocket for state updates, the camera picture fetched at the
// client's own pace, control actions POSTed with the token (only when the page has it).
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  let token = null;
  let clockOffsetS = 0;   // server time minus local time
  let lastState = null;
  let shownLevel = null;  // only follow the game's level when it changes (keep a pending pick)
  let frameWanted = 0, frameLoading = false;

  // -- token: from ?token=..., kept for this tab only and removed from the address bar ------
  const params = new URLSearchParams(location.search);
  if (params.get("token")) {
    sessionStorage.setItem("damas-token", params.get("token"));
    params.delete("token");
    const q = params.toString();
    history.replaceState(null, "", location.pathname + (q ? "?" + q : ""));
  }
  token = sessionStorage.getItem("damas-token");
  if (token) {
    fetch("/api/whoami", { headers: { Authorization: "Bearer " + token } })
      .then((r) => r.json()).then((j) => {
        if (j.control) { $("controls").hidden = false; }
        else { token = null; sessionStorage.removeItem("damas-token");
               $("status").textContent = "That control link is not valid for this table."; }
      }).catch(() => {});
  }

  // -- rendering ------------------------------------------------------------------------------
  function text(el, s) { if (el.textContent !== s) el.textContent = s; }

  function renderMoves(st) {
    const ol = $("moves");
    const moves = st.moves;
    const offset = st.second_moves_first ? 1 : 0;
    const rows = Math.ceil((moves.length + offset) / 2);
    ol.innerHTML = "";
    for (let r = 0; r < rows; r++) {
      const li = document.createElement("li");
      for (let c = 0; c < 2; c++) {
        const i = r * 2 + c - offset;
        const span = document.createElement("span");
        span.textContent = i >= 0 && i < moves.length ? moves[i] : (i < 0 ? "…" : "");
        if (i === moves.length - 1) span.className = "last";
        li.appendChild(span);
      }
      ol.appendChild(li);
    }
    ol.scrollTop = ol.scrollHeight;
  }

  function renderThinking(th) {
    let label = "–", frac = 0.5;
    if (th.mate_in !== null && th.mate_in !== undefined) {
      label = (th.mate_in > 0 ? "White" : "Black") + " wins in " + Math.abs(th.mate_in) + " plies";
      frac = th.mate_in > 0 ? 1 : 0;
    } else if (th.score_cp !== null && th.score_cp !== undefined) {
      label = (th.score_cp > 0 ? "+" : "") + (th.score_cp / 100).toFixed(2);
      frac = 1 / (1 + Math.exp(-th.score_cp / 250));
    }
    text($("score"), label);
    text($("depth"), th.depth ? "depth " + th.depth : "");
    text($("pv"), th.pv.length ? "thinks: " + th.pv.join(" ") : "");
    $("evalfill").style.width = (100 * frac).toFixed(1) + "%";
  }

  function renderAlerts(alerts) {
    const box = $("alerts");
    box.innerHTML = "";
    for (const a of alerts) {
      const div = document.createElement("div");
      div.className = "alert " + a.severity;
      div.dataset.alertId = a.id;
      const p = document.createElement("div");
      p.textContent = a.text + (a.squares.length ? " (" + a.squares.join(", ") + ")" : "");
      div.appendChild(p);
      if (token) {
        const answers = a.choices.length ? a.choices : [null];
        for (const choice of answers) {
          const b = document.createElement("button");
          b.textContent = choice === null ? "Resolved" : choice;
          b.addEventListener("click", () => control({ action: "resolve", alert_id: a.id,
                                                       ...(choice === null ? {} : { choice }) }));
          div.appendChild(b);
        }
      }
      box.appendChild(div);
    }
  }

  function fmtClock(s) {
    s = Math.max(0, s);
    const m = Math.floor(s / 60), sec = Math.floor(s % 60);
    return m + ":" + String(sec).padStart(2, "0");
  }

  function renderClock() {
    const c = lastState && lastState.clock;
    $("clock").hidden = !c;
    if (!c) return;
    const now = Date.now() / 1000 + clockOffsetS;
    for (const side of ["white", "black"]) {
      let left = c[side + "_s"];
      if (c.running === side) left -= now - c.at_s;
      text($("clock-" + side).querySelector(".t"), fmtClock(left));
      $("clock-" + side).classList.toggle("running", c.running === side);
    }
  }

  function render(st) {
    lastState = st;
    text($("variant"), st.variant_title);
    text($("status"), st.status);
    const ph = $("phase");
    text(ph, st.phase);
    ph.className = "badge " + st.phase;
    $("board").innerHTML = st.svg;
    renderMoves(st);
    renderThinking(st.thinking);
    renderAlerts(st.alerts);
    text($("result"), st.result !== "*" ? st.result : "");
    const w = st.tags.White, b = st.tags.Black;
    text($("players"), w || b ? (w || "?") + " (white) – " + (b || "?") + " (black)" +
                               (st.level ? ", level " + st.level : "") : "");
    if (st.level && st.level !== shownLevel) { shownLevel = st.level; $("level").value = String(st.level); }
    document.body.dataset.seq = st.seq;
    renderClock();
  }
  setInterval(renderClock, 250);

  // -- camera: one picture at a time, always the newest ------------------------------------
  const img = $("camera");
  function loadFrame() {
    if (frameLoading || !frameWanted) return;
    frameLoading = true;
    const seq = frameWanted;
    img.src = "/api/frame.jpg?seq=" + seq;
    img.dataset.seq = seq;
  }
  img.addEventListener("load", () => { frameLoading = false; $("camera-box").hidden = false;
                                       if (frameWanted > Number(img.dataset.seq)) loadFrame(); });
  img.addEventListener("error", () => { frameLoading = false; });

  // -- live connection ---------------------------------------------------------------------
  let backoffMs = 500;
  function connect() {
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") +
                             location.host + "/ws");
    ws.onopen = () => { backoffMs = 500; $("link").className = "link up"; };
    ws.onmessage = (ev) => {
      const msg = JSON.parse(ev.data);
      if (msg.type === "state") {
        clockOffsetS = msg.now_s - Date.now() / 1000;
        render(msg.state);
      } else if (msg.type === "frame") {
        frameWanted = msg.seq;
        loadFrame();
      }
    };
    ws.onclose = () => {
      $("link").className = "link down";
      setTimeout(connect, backoffMs);
      backoffMs = Math.min(backoffMs * 2, 10000);
    };
  }
  fetch("/api/state").then((r) => r.json()).then((st) => { if (!lastState) render(st); })
    .catch(() => {});
  connect();

  // -- control -----------------------------------------------------------------------------
  function control(body) {
    const msg = $("control-msg");
    msg.textContent = "…";
    return fetch("/api/control", {
      method: "POST",
      headers: { "Content-Type": "application/json",
                 ...(token ? { Authorization: "Bearer " + token } : {}) },
      body: JSON.stringify(body),
    }).then((r) => r.json().then((j) => {
      msg.textContent = r.ok ? "Sent: " + body.action : "Refused: " + j.error;
      msg.dataset.status = String(r.status);
      return r.status;
    })).catch((e) => { msg.textContent = "Not sent: " + e; });
  }
  window.damasControl = control;
  for (const b of document.querySelectorAll("button[data-action]")) {
    b.addEventListener("click", () => control({ action: b.dataset.action }));
  }
  $("btn-level").addEventListener("click",
    () => control({ action: "level", level: Number($("level").value) }));
  $("btn-qr").addEventListener("click", () => {
    fetch("/api/qr.svg", { headers: { Authorization: "Bearer " + token } })
      .then((r) => r.blob()).then((blob) => {
        const q = $("qr");
        q.src = URL.createObjectURL(blob);
        q.hidden = !q.hidden;
      });
  });
})();
