const fs = require("fs");
const dir = "/tmp/gs/cpuprof";
const files = fs.readdirSync(dir).map((f) => [f, fs.statSync(dir + "/" + f).size]).sort((a, b) => b[1] - a[1]);
const p = JSON.parse(fs.readFileSync(dir + "/" + files[0][0]));
const self = new Map();
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const dt = p.timeDeltas; const samples = p.samples;
const cnt = new Map();
for (let i = 0; i < samples.length; i++) cnt.set(samples[i], (cnt.get(samples[i]) || 0) + (dt[i] || 0));
for (const [id, t] of cnt) { const n = byId.get(id); const k = `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.split("/").slice(-2).join("/")}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) || 0) + t); }
const tot = [...self.values()].reduce((a, b) => a + b, 0);
console.log("total ms", (tot / 1000).toFixed(0));
for (const [k, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log((t / 1000).toFixed(0).padStart(6), k);
