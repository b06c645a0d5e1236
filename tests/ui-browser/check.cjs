// Drives Debian's Chromium (headless, through the DevTools protocol, with
// puppeteer-core: no browser download) over a running `egret ui`, for
// tests/tests/ui.rs. Prints one JSON line of what it saw; the Rust test
// asserts on it. Exits non-zero (with what it saw so far) when a wait times out.
//
// Usage: node check.cjs MODULES_DIR URL TOPOLOGY SHOTS_DIR
"use strict";
const path = require("path");
const [modules, url, topology, shots] = process.argv.slice(2);
const puppeteer = require(path.join(modules, "node_modules", "puppeteer-core"));

const seen = { listed: false, components: [], bottleneck: null, emitted: [], errors: [], screenshots: [] };

async function main() {
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 1000 });
    await page.goto(url, { waitUntil: "domcontentloaded" });
    const row = `#topologies tr[data-topology="${topology}"]`;
    await page.waitForSelector(row, { timeout: 30000 });
    seen.listed = true;
    const front = path.join(shots, "topologies.png");
    await page.screenshot({ path: front });
    seen.screenshots.push(front);
    // From the front page to the topology, as a user would.
    await page.click(`${row} td a`);
    await page.waitForSelector("#dag g.node", { timeout: 30000 });
    seen.components = await page.$$eval("#dag g.node", ns => ns.map(n => n.getAttribute("data-component")));
    // The bottleneck needs the slow bolt's first statistics reports.
    await page.waitForSelector("#dag g.node.bottleneck", { timeout: 60000 });
    seen.bottleneck = await page.$eval("#dag g.node.bottleneck", n => n.getAttribute("data-component"));
    seen.banner = await page.$eval("#bottleneck", n => n.getAttribute("data-component"));
    seen.tableBottleneck = await page.$$eval("#components tr.bottleneck", rs => rs.map(r => r.getAttribute("data-component")));
    const emitted = () => page.$eval('#components tr[data-component="spout"] td.emitted',
      td => Number(td.textContent.replace(/,/g, "")));
    const first = await emitted();
    seen.emitted.push(first);
    // Instances report every 5 s and the page polls every 3 s, but the spout
    // emits in bursts: backpressure from the slow bolt holds it back, and its
    // reports wait behind its held tuples. So wait for the page to show more
    // (a page that never refreshes, or a spout that stopped, times out).
    const rose = Date.now();
    await page.waitForFunction(
      before => {
        const td = document.querySelector('#components tr[data-component="spout"] td.emitted');
        return td && Number(td.textContent.replace(/,/g, "")) > before;
      },
      { timeout: 45000, polling: 250 },
      first,
    );
    seen.emitted.push(await emitted());
    seen.riseAfterMs = Date.now() - rose;
    await page.waitForSelector("#errors .error pre", { timeout: 30000 });
    seen.errors = await page.$$eval("#errors .error", es => es.map(e => ({
      component: e.getAttribute("data-component"),
      text: e.querySelector("pre").textContent,
    })));
    // Let the charts get a few points for the screenshot.
    await page.waitForSelector('#charts .chart-card svg polyline', { timeout: 30000 });
    const full = path.join(shots, "topology.png");
    await page.screenshot({ path: full, fullPage: true });
    seen.screenshots.push(full);
    const top = path.join(shots, "topology-top.png");
    await page.screenshot({ path: top, clip: { x: 0, y: 0, width: 1400, height: 900 } });
    seen.screenshots.push(top);
  } finally {
    await browser.close();
  }
}

main().then(
  () => { console.log(JSON.stringify(seen)); },
  e => { console.log(JSON.stringify(seen)); console.error(String(e && e.stack || e)); process.exit(1); },
);
