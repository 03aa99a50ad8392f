import { PGlite } from '@electric-sql/pglite';
let t = performance.now();
const a = new PGlite(); await a.waitReady; console.log('boot', Math.round(performance.now()-t));
t = performance.now();
const b = new PGlite(); await b.waitReady; console.log('boot2', Math.round(performance.now()-t));
const dump = await a.dumpDataDir('none'); console.log('dump size', dump.size);
t = performance.now();
const c = new PGlite({ loadDataDir: dump }); await c.waitReady; console.log('boot from dump', Math.round(performance.now()-t));
