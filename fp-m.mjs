const list = process.argv.slice(2);
for (const m of list) await import(m);
await new Promise(r=>setTimeout(r,200)); gc(); gc();
const u = process.memoryUsage(); console.log(list.join('+').padEnd(40), 'rss', (u.rss/1048576).toFixed(1), 'heap', (u.heapUsed/1048576).toFixed(1), 'total', (u.heapTotal/1048576).toFixed(1));
