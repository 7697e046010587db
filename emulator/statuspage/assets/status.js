// The status page: live updates over server-sent events (the server
// renders the HTML, this only swaps it in), times shown relative to now,
// and the filter by state and text.
"use strict";

const live = document.getElementById("live");
const conn = document.getElementById("conn");
const stateFilter = document.getElementById("state");
const textFilter = document.getElementById("text");

// ago writes how long ago a time (ms since the epoch) was.
function ago(ms) {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return s + "s ago";
  if (s < 3600) return Math.floor(s / 60) + "m " + (s % 60) + "s ago";
  return Math.floor(s / 3600) + "h " + Math.floor((s % 3600) / 60) + "m ago";
}

function refreshTimes() {
  for (const el of live.querySelectorAll("time[data-ms]")) {
    el.textContent = ago(Number(el.dataset.ms));
  }
}

// applyFilter hides the endpoint rows that do not match, and the sections
// left with none.
function applyFilter() {
  const state = stateFilter.value;
  const text = textFilter.value.trim().toLowerCase();
  for (const row of live.querySelectorAll("tr[data-state]")) {
    const match = (state === "" || row.dataset.state === state) &&
      (text === "" || row.textContent.toLowerCase().includes(text));
    row.hidden = !match;
  }
  for (const section of live.querySelectorAll("section[data-filterable]")) {
    section.hidden = section.querySelector("tr[data-state]:not([hidden])") === null;
  }
  const q = new URLSearchParams();
  if (state) q.set("state", state);
  if (text) q.set("q", textFilter.value.trim());
  history.replaceState(null, "", q.toString() ? "?" + q : location.pathname);
}

const params = new URLSearchParams(location.search);
stateFilter.value = params.get("state") || "";
textFilter.value = params.get("q") || "";
stateFilter.addEventListener("change", applyFilter);
textFilter.addEventListener("input", applyFilter);
applyFilter();
refreshTimes();
setInterval(refreshTimes, 1000);

// A workload's mode select breaks or heals that instance's simulated
// workload (the API's POST /_emulator/workloads/{instance}); the next live
// update shows the result.
live.addEventListener("change", async (e) => {
  const select = e.target.closest("select.mode");
  if (!select) return;
  try {
    const resp = await fetch("/_emulator/workloads/" + select.dataset.instance, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ mode: select.value }),
    });
    if (!resp.ok) {
      const body = await resp.json().catch(() => ({}));
      conn.textContent = "mode not set: " + ((body.error && body.error.message) || resp.status);
      conn.className = "down";
    }
  } catch (err) {
    conn.textContent = "mode not set: " + err;
    conn.className = "down";
  }
});

const events = new EventSource("/_emulator/status/live");
// detailsKey names an expandable cell across updates: its section and row.
function detailsKey(d) {
  const section = d.closest("section");
  const row = d.closest("tr");
  return (section ? section.id : "") + "|" + (row ? row.dataset.endpoint : "");
}

events.addEventListener("live", (e) => {
  const open = new Set([...live.querySelectorAll("details[open]")].map(detailsKey));
  live.innerHTML = e.data;
  for (const d of live.querySelectorAll("details")) {
    if (open.has(detailsKey(d))) d.open = true;
  }
  live.dataset.updates = String(Number(live.dataset.updates || 0) + 1);
  refreshTimes();
  applyFilter();
});
events.onopen = () => { conn.textContent = "live"; conn.className = ""; };
events.onerror = () => { conn.textContent = "disconnected: retrying"; conn.className = "down"; };
