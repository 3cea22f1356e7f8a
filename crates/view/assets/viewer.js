// srcmap view: a WebGL2 viewer of srcmap-export's GLB and the scene the server derives from
// the BSP (tree, face clusters, PVS rows, portals). No dependencies, so it works offline.
"use strict";

const METRES = 0.0254; // per Source unit (inch), as the glTF export scales
// Source (X forward, Y left, Z up, inches) to glTF (Y up, metres), as the export maps it.
const toGl = (x, y, z) => [x * METRES, z * METRES, -y * METRES];

const params = new URLSearchParams(location.search);
const statusEl = document.getElementById("status");
const notesEl = document.getElementById("notes");

function fail(message) {
  document.title = "error: " + message;
  statusEl.textContent = "error: " + message;
}

// ---- small matrix helpers (column-major, as WebGL wants) ----
function perspective(fovy, aspect, near, far) {
  const f = 1 / Math.tan(fovy / 2), nf = 1 / (near - far);
  return new Float32Array([f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) * nf, -1, 0, 0, 2 * far * near * nf, 0]);
}
function mul(a, b) {
  const o = new Float32Array(16);
  for (let c = 0; c < 4; c++)
    for (let r = 0; r < 4; r++) {
      let s = 0;
      for (let k = 0; k < 4; k++) s += a[k * 4 + r] * b[c * 4 + k];
      o[c * 4 + r] = s;
    }
  return o;
}
function lookAlong(eye, f) {
  const up = [0, 1, 0];
  let s = [f[1] * up[2] - f[2] * up[1], f[2] * up[0] - f[0] * up[2], f[0] * up[1] - f[1] * up[0]];
  const sl = Math.hypot(...s) || 1;
  s = s.map((v) => v / sl);
  const u = [s[1] * f[2] - s[2] * f[1], s[2] * f[0] - s[0] * f[2], s[0] * f[1] - s[1] * f[0]];
  const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  return new Float32Array([s[0], u[0], -f[0], 0, s[1], u[1], -f[1], 0, s[2], u[2], -f[2], 0,
    -dot(s, eye), -dot(u, eye), dot(f, eye), 1]);
}
function nodeMatrix(n) {
  if (n.matrix) return new Float32Array(n.matrix);
  const [x, y, z, w] = n.rotation || [0, 0, 0, 1];
  const [sx, sy, sz] = n.scale || [1, 1, 1];
  const [tx, ty, tz] = n.translation || [0, 0, 0];
  return new Float32Array([
    (1 - 2 * (y * y + z * z)) * sx, 2 * (x * y + z * w) * sx, 2 * (x * z - y * w) * sx, 0,
    2 * (x * y - z * w) * sy, (1 - 2 * (x * x + z * z)) * sy, 2 * (y * z + x * w) * sy, 0,
    2 * (x * z + y * w) * sz, 2 * (y * z - x * w) * sz, (1 - 2 * (x * x + y * y)) * sz, 0,
    tx, ty, tz, 1]);
}

// ---- GLB ----
function parseGlb(buffer) {
  const dv = new DataView(buffer);
  if (buffer.byteLength < 20 || dv.getUint32(0, true) !== 0x46546c67) throw new Error("map.glb is not a GLB file");
  const jsonLen = dv.getUint32(12, true);
  const doc = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 20, jsonLen)));
  const binAt = 20 + jsonLen;
  const binOffset = binAt + 8 <= buffer.byteLength ? binAt + 8 : 0;
  return { doc, buffer, binOffset };
}
const COMPONENTS = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4 };
const ARRAYS = { 5126: Float32Array, 5125: Uint32Array, 5123: Uint16Array, 5121: Uint8Array };
function accessorData(glb, index) {
  const a = glb.doc.accessors[index];
  const view = glb.doc.bufferViews[a.bufferView];
  const Type = ARRAYS[a.componentType];
  const offset = glb.binOffset + (view.byteOffset || 0) + (a.byteOffset || 0);
  return new Type(glb.buffer, offset, a.count * COMPONENTS[a.type]);
}
function viewBytes(glb, index) {
  const view = glb.doc.bufferViews[index];
  return new Uint8Array(glb.buffer, glb.binOffset + (view.byteOffset || 0), view.byteLength);
}

// ---- shaders ----
const MESH_VS = `#version 300 es
layout(location=0) in vec3 aPos; layout(location=1) in vec3 aNormal;
layout(location=2) in vec2 aUv; layout(location=3) in vec2 aLightUv; layout(location=4) in float aSeen;
uniform mat4 uViewProj, uModel;
out vec3 vNormal; out vec2 vUv, vLightUv; out float vSeen;
void main() {
  gl_Position = uViewProj * uModel * vec4(aPos, 1.0);
  vNormal = mat3(uModel) * aNormal; vUv = aUv; vLightUv = aLightUv; vSeen = aSeen;
}`;
const MESH_FS = `#version 300 es
precision highp float;
in vec3 vNormal; in vec2 vUv, vLightUv; in float vSeen;
uniform sampler2D uBase, uLight; uniform vec3 uColor; uniform bool uHasTexture;
uniform int uShading; uniform bool uPvs;
out vec4 outColor;
void main() {
  vec3 base = uHasTexture ? texture(uBase, vUv).rgb : uColor;
  vec3 light = texture(uLight, vLightUv).rgb;
  float shade = 0.55 + 0.45 * abs(dot(normalize(vNormal), normalize(vec3(0.4, 0.8, 0.3))));
  vec3 c = uShading == 0 ? base * light : uShading == 1 ? base * shade : light;
  if (uPvs) {
    // 2: the camera's cluster, 1: a cluster it can see, 0: hidden from it.
    if (vSeen > 1.5) c = mix(c, vec3(1.0, 0.85, 0.2), 0.3);
    else if (vSeen > 0.5) c = mix(c, vec3(0.2, 1.0, 0.35), 0.15);
    else c = c * 0.3 + vec3(0.0, 0.0, 0.1);
  }
  outColor = vec4(c, 1.0);
}`;
const LINE_VS = `#version 300 es
layout(location=0) in vec3 aPos; layout(location=1) in vec4 aColor;
uniform mat4 uViewProj; out vec4 vColor;
void main() { gl_Position = uViewProj * vec4(aPos, 1.0); vColor = aColor; }`;
const LINE_FS = `#version 300 es
precision mediump float; in vec4 vColor; out vec4 outColor;
void main() { outColor = vColor; }`;

function program(gl, vs, fs) {
  const p = gl.createProgram();
  for (const [kind, src] of [[gl.VERTEX_SHADER, vs], [gl.FRAGMENT_SHADER, fs]]) {
    const s = gl.createShader(kind);
    gl.shaderSource(s, src);
    gl.compileShader(s);
    if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error("shader: " + gl.getShaderInfoLog(s));
    gl.attachShader(p, s);
  }
  gl.linkProgram(p);
  if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error("link: " + gl.getProgramInfoLog(p));
  const u = {};
  for (let i = 0; i < gl.getProgramParameter(p, gl.ACTIVE_UNIFORMS); i++) {
    const name = gl.getActiveUniform(p, i).name;
    u[name] = gl.getUniformLocation(p, name);
  }
  return { p, u };
}

async function loadTextures(gl, glb) {
  const doc = glb.doc;
  const bitmaps = await Promise.all((doc.images || []).map((img) =>
    createImageBitmap(new Blob([viewBytes(glb, img.bufferView)], { type: img.mimeType }))));
  return (doc.textures || []).map((t) => {
    const s = (doc.samplers || [])[t.sampler] || {};
    const tex = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, tex);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, bitmaps[t.source]);
    const nearest = s.magFilter === 9728;
    const repeat = (s.wrapS || 10497) === 10497;
    if (repeat && !nearest) gl.generateMipmap(gl.TEXTURE_2D);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, nearest ? gl.NEAREST : gl.LINEAR);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER,
      nearest ? gl.NEAREST : repeat ? gl.LINEAR_MIPMAP_LINEAR : gl.LINEAR);
    const wrap = repeat ? gl.REPEAT : gl.CLAMP_TO_EDGE;
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, wrap);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, wrap);
    return tex;
  });
}

// The draw list: every primitive of every node's mesh, with the node's world matrix. All
// primitives of the export share one set of vertex attributes; a VAO is made per set.
function buildDraws(gl, glb, seenBuffer) {
  const doc = glb.doc;
  const vaos = new Map();
  const vaoFor = (attributes) => {
    const key = JSON.stringify(attributes);
    if (vaos.has(key)) return vaos.get(key);
    const vao = gl.createVertexArray();
    gl.bindVertexArray(vao);
    [["POSITION", 3], ["NORMAL", 3], ["TEXCOORD_0", 2], ["TEXCOORD_1", 2]].forEach(([name, n], loc) => {
      if (attributes[name] === undefined) return;
      const buf = gl.createBuffer();
      gl.bindBuffer(gl.ARRAY_BUFFER, buf);
      gl.bufferData(gl.ARRAY_BUFFER, accessorData(glb, attributes[name]), gl.STATIC_DRAW);
      gl.enableVertexAttribArray(loc);
      gl.vertexAttribPointer(loc, n, gl.FLOAT, false, 0, 0);
    });
    gl.bindBuffer(gl.ARRAY_BUFFER, seenBuffer);
    gl.enableVertexAttribArray(4);
    gl.vertexAttribPointer(4, 1, gl.FLOAT, false, 0, 0);
    vaos.set(key, vao);
    return vao;
  };
  const draws = [];
  const visit = (index, parent) => {
    const node = doc.nodes[index];
    const world = mul(parent, nodeMatrix(node));
    if (node.mesh !== undefined) {
      for (const prim of doc.meshes[node.mesh].primitives) {
        if ((prim.mode ?? 4) !== 4 || prim.indices === undefined) continue;
        const vao = vaoFor(prim.attributes);
        const ebo = gl.createBuffer();
        gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, ebo);
        const idx = accessorData(glb, prim.indices);
        gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, idx, gl.STATIC_DRAW);
        gl.bindVertexArray(null);
        draws.push({ vao, ebo, count: idx.length, type: glb.doc.accessors[prim.indices].componentType,
          material: prim.material, world });
      }
    }
    for (const c of node.children || []) visit(c, world);
  };
  const identity = new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
  const scene = doc.scenes ? doc.scenes[doc.scene || 0] : { nodes: [] };
  for (const n of scene.nodes) visit(n, identity);
  return draws;
}

// A line set: positions (glTF space) and RGBA colours per vertex, drawn as gl.LINES.
function lineSet(gl, positions, colors) {
  const vao = gl.createVertexArray();
  gl.bindVertexArray(vao);
  const pos = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, pos);
  gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(positions), gl.STATIC_DRAW);
  gl.enableVertexAttribArray(0);
  gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 0, 0);
  const col = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, col);
  gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(colors), gl.DYNAMIC_DRAW);
  gl.enableVertexAttribArray(1);
  gl.vertexAttribPointer(1, 4, gl.FLOAT, false, 0, 0);
  gl.bindVertexArray(null);
  return { vao, col, count: positions.length / 3 };
}
// Polygons (flat Source points) as their edges.
function polygonEdges(polys) {
  const out = [];
  for (const flat of polys) {
    const n = flat.length / 3;
    for (let i = 0; i < n; i++) {
      const j = (i + 1) % n;
      out.push(...toGl(flat[3 * i], flat[3 * i + 1], flat[3 * i + 2]), ...toGl(flat[3 * j], flat[3 * j + 1], flat[3 * j + 2]));
    }
  }
  return out;
}

async function main() {
  const canvas = document.getElementById("view");
  const gl = canvas.getContext("webgl2", { antialias: true, preserveDrawingBuffer: true });
  if (!gl) return fail("WebGL2 is not available in this browser");
  const get = async (path) => {
    const r = await fetch(path);
    if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
    return r;
  };
  const [glbBytes, scene, pvsBytes] = await Promise.all([
    get("map.glb").then((r) => r.arrayBuffer()),
    get("scene.json").then((r) => r.json()),
    get("pvs.bin").then((r) => r.arrayBuffer()),
  ]);
  const glb = parseGlb(glbBytes);
  const pvs = new Uint8Array(pvsBytes);
  const numClusters = scene.num_clusters;
  const rowLen = (numClusters + 7) >> 3;
  const canSee = (from, to) => from >= 0 && to >= 0 && from < numClusters && to < numClusters &&
    (pvs[from * rowLen + (to >> 3)] & (1 << (to & 7))) !== 0;

  if (params.get("hud") === "0") document.getElementById("hud").style.display = "none";
  notesEl.textContent = scene.notes.map((n) => "note: " + n).join("\n");
  const textures = await loadTextures(gl, glb);
  const vertexCount = glb.doc.accessors && glb.doc.meshes ?
    glb.doc.accessors[glb.doc.meshes[0].primitives[0].attributes.POSITION].count : 0;
  const seen = new Float32Array(vertexCount).fill(1);
  const seenBuffer = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, seenBuffer);
  gl.bufferData(gl.ARRAY_BUFFER, seen, gl.DYNAMIC_DRAW);
  const draws = buildDraws(gl, glb, seenBuffer);
  const materials = (glb.doc.materials || []).map((m) => {
    const pbr = m.pbrMetallicRoughness || {};
    const f = pbr.baseColorFactor || [1, 1, 1, 1];
    return {
      texture: pbr.baseColorTexture ? textures[pbr.baseColorTexture.index] : null,
      // glTF factors are linear; the lightmap atlas and textures are in display gamma.
      color: f.slice(0, 3).map((c) => Math.pow(c, 1 / 2.2)),
      light: m.extras && m.extras.lightmap ? textures[m.extras.lightmap.index] : null,
    };
  });
  const white = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, white);
  gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 1, 1, 0, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array([255, 255, 255, 255]));

  const meshProgram = program(gl, MESH_VS, MESH_FS);
  const lineProgram = program(gl, LINE_VS, LINE_FS);

  // Overlays.
  const areaPortals = lineSet(gl, polygonEdges(scene.area_portals.map((p) => p.points)), []);
  gl.bindBuffer(gl.ARRAY_BUFFER, areaPortals.col);
  gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(areaPortals.count * 4).map((_, i) => [0.2, 0.9, 1, 1][i % 4]), gl.STATIC_DRAW);
  const leakPoints = [];
  const leak = scene.leak || [];
  for (let i = 0; i + 5 < leak.length; i += 3) leakPoints.push(...toGl(leak[i], leak[i + 1], leak[i + 2]), ...toGl(leak[i + 3], leak[i + 4], leak[i + 5]));
  const leakLines = lineSet(gl, leakPoints, new Array(leakPoints.length / 3 * 4).fill(0).map((_, i) => [1, 0.15, 0.1, 1][i % 4]));
  const prt = scene.portals || [];
  const portalLines = lineSet(gl, polygonEdges(prt.map((p) => p.points)), []);
  const portalVertexCluster = [];
  prt.forEach((p) => { for (let i = 0; i < p.points.length / 3 * 2; i++) portalVertexCluster.push(p.clusters); });
  const colorPortals = (cluster) => {
    const c = new Float32Array(portalLines.count * 4);
    portalVertexCluster.forEach((cl, i) => {
      const mine = cl[0] === cluster || cl[1] === cluster;
      c.set(mine ? [1, 0.55, 0.1, 1] : [0.95, 0.9, 0.3, 0.6], i * 4);
    });
    gl.bindBuffer(gl.ARRAY_BUFFER, portalLines.col);
    gl.bufferData(gl.ARRAY_BUFFER, c, gl.DYNAMIC_DRAW);
  };
  colorPortals(-1);
  for (const [id, present] of [["leak", scene.leak], ["portals", scene.portals]]) {
    if (!present) {
      const box = document.getElementById(id);
      box.checked = false;
      box.disabled = true;
      box.parentElement.title = "no file beside the map";
    }
  }
  // With one cluster (or none) there is nothing to tell apart.
  if (numClusters < 2) document.getElementById("pvs").checked = false;

  // Camera, in Source coordinates: [x, y, z], yaw and pitch in degrees (pitch down positive).
  let [cx, cy, cz, yaw, pitch] = scene.camera;
  const camParam = (params.get("cam") || "").split(",").map(Number);
  if (camParam.length === 5 && camParam.every(Number.isFinite)) [cx, cy, cz, yaw, pitch] = camParam;
  const shadingParam = params.get("shading");
  if (shadingParam) for (const r of document.querySelectorAll("input[name=shading]")) r.checked = r.value === shadingParam;
  for (const id of ["pvs", "areaportals", "portals", "leak"]) {
    const v = params.get(id);
    const box = document.getElementById(id);
    if (v !== null && !box.disabled) box.checked = v !== "0";
  }
  let speed = 500; // inches per second
  const keys = new Set();
  const checkbox = (id) => document.getElementById(id);
  const toggles = { KeyV: "pvs", KeyF: "freeze", KeyR: "areaportals", KeyP: "portals", KeyL: "leak" };
  addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" && e.target.type !== "checkbox" && e.target.type !== "radio") return;
    keys.add(e.code);
    if (toggles[e.code] && !checkbox(toggles[e.code]).disabled) checkbox(toggles[e.code]).checked ^= true;
    const shade = { Digit1: "lit", Digit2: "fullbright", Digit3: "lightmap" }[e.code];
    if (shade) document.querySelector(`input[name=shading][value=${shade}]`).checked = true;
    if (e.key === "+" || e.key === "=") speed = Math.min(speed * 1.5, 20000);
    if (e.key === "-") speed = Math.max(speed / 1.5, 20);
    if (e.code === "Space") e.preventDefault();
  });
  addEventListener("keyup", (e) => keys.delete(e.code));
  addEventListener("blur", () => keys.clear());
  canvas.addEventListener("wheel", (e) => { speed = Math.min(Math.max(speed * (e.deltaY < 0 ? 1.2 : 1 / 1.2), 20), 20000); e.preventDefault(); }, { passive: false });
  let dragging = false;
  canvas.addEventListener("mousedown", () => { dragging = true; if (canvas.requestPointerLock) canvas.requestPointerLock(); });
  addEventListener("mouseup", () => { dragging = false; });
  addEventListener("mousemove", (e) => {
    if (document.pointerLockElement !== canvas && !dragging) return;
    yaw -= e.movementX * 0.15;
    pitch = Math.max(-89, Math.min(89, pitch + e.movementY * 0.15));
  });

  const leafAt = (p) => {
    let n = scene.head_node;
    for (let guard = 0; guard <= scene.nodes.length && n >= 0; guard++) {
      const node = scene.nodes[n];
      if (!node) return -1;
      const d = node[0] * p[0] + node[1] * p[1] + node[2] * p[2] - node[3];
      n = d >= 0 ? node[4] : node[5];
    }
    return n < 0 ? -1 - n : -1;
  };
  // Marks each vertex 2 (in `cluster`), 1 (a cluster it can see, or clusters unknown), 0.
  let shownCluster = null;
  let seesCount = 0;
  const updateSeen = (cluster) => {
    seesCount = 0;
    for (let c = 0; c < numClusters; c++) if (canSee(cluster, c)) seesCount++;
    for (const [start, end, clusters] of scene.faces) {
      let v = clusters.length === 0 || cluster < 0 ? 1 : 0;
      for (const c of clusters) {
        if (c === cluster) { v = 2; break; }
        if (canSee(cluster, c)) v = 1;
      }
      seen.fill(v, start, end);
    }
    gl.bindBuffer(gl.ARRAY_BUFFER, seenBuffer);
    gl.bufferSubData(gl.ARRAY_BUFFER, 0, seen);
    colorPortals(cluster);
  };

  // Frames are drawn on demand: after input, while a movement key is held, or on resize.
  let dirty = true;
  const redraw = () => { dirty = true; };
  for (const input of document.querySelectorAll("input")) input.addEventListener("change", redraw);
  for (const ev of ["keydown", "keyup", "mousemove", "wheel", "resize"]) addEventListener(ev, redraw);
  const MOVE_KEYS = ["KeyW", "KeyA", "KeyS", "KeyD", "Space", "KeyE", "KeyQ", "KeyC"];
  let last = performance.now();
  let drawn = 0;
  let readyText = null;
  const frame = (now) => {
    const dt = Math.min((now - last) / 1000, 0.1);
    last = now;
    requestAnimationFrame(frame);
    if (drawn === 1 && !readyText) {
      // The first frame has been presented. The title is what tests and scripts watch.
      readyText = `ready ${scene.triangles} triangles in ${performance.now().toFixed(0)} ms`;
      dirty = true;
    }
    if (!dirty && !MOVE_KEYS.some((k) => keys.has(k))) return;
    dirty = false;
    const cyaw = yaw * Math.PI / 180, cpitch = pitch * Math.PI / 180;
    const fwd = [Math.cos(cpitch) * Math.cos(cyaw), Math.cos(cpitch) * Math.sin(cyaw), -Math.sin(cpitch)];
    const right = [Math.sin(cyaw), -Math.cos(cyaw), 0];
    const step = speed * dt * (keys.has("ShiftLeft") || keys.has("ShiftRight") ? 4 : 1);
    const move = (v, k) => { cx += v[0] * k; cy += v[1] * k; cz += v[2] * k; };
    if (keys.has("KeyW")) move(fwd, step);
    if (keys.has("KeyS")) move(fwd, -step);
    if (keys.has("KeyD")) move(right, step);
    if (keys.has("KeyA")) move(right, -step);
    if (keys.has("Space") || keys.has("KeyE")) cz += step;
    if (keys.has("KeyQ") || keys.has("KeyC")) cz -= step;

    const leaf = leafAt([cx, cy, cz]);
    const [cluster, area] = leaf >= 0 && scene.leafs[leaf] ? scene.leafs[leaf] : [-1, -1];
    const frozen = checkbox("freeze").checked && shownCluster !== null;
    if (!frozen && cluster !== shownCluster) { shownCluster = cluster; updateSeen(cluster); }

    const w = Math.max(1, Math.round(canvas.clientWidth * devicePixelRatio));
    const h = Math.max(1, Math.round(canvas.clientHeight * devicePixelRatio));
    if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
    gl.viewport(0, 0, w, h);
    gl.clearColor(0.125, 0.141, 0.169, 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.enable(gl.DEPTH_TEST);
    gl.enable(gl.CULL_FACE);
    const viewProj = mul(perspective(75 * Math.PI / 180, w / h, 0.05, 4000),
      lookAlong(toGl(cx, cy, cz), toGl(...fwd).map((v) => v / METRES)));

    const shading = { lit: 0, fullbright: 1, lightmap: 2 }[document.querySelector("input[name=shading]:checked").value];
    gl.useProgram(meshProgram.p);
    const u = meshProgram.u;
    gl.uniformMatrix4fv(u.uViewProj, false, viewProj);
    gl.uniform1i(u.uShading, shading);
    gl.uniform1i(u.uPvs, checkbox("pvs").checked && numClusters > 0 && shownCluster >= 0 ? 1 : 0);
    gl.uniform1i(u.uBase, 0);
    gl.uniform1i(u.uLight, 1);
    for (const d of draws) {
      const m = materials[d.material] || { texture: null, color: [0.7, 0.7, 0.7], light: null };
      gl.activeTexture(gl.TEXTURE0);
      gl.bindTexture(gl.TEXTURE_2D, m.texture || white);
      gl.activeTexture(gl.TEXTURE1);
      gl.bindTexture(gl.TEXTURE_2D, m.light || white);
      gl.uniform1i(u.uHasTexture, m.texture ? 1 : 0);
      gl.uniform3fv(u.uColor, m.color);
      gl.uniformMatrix4fv(u.uModel, false, d.world);
      gl.bindVertexArray(d.vao);
      gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, d.ebo);
      gl.drawElements(gl.TRIANGLES, d.count, d.type === 5125 ? gl.UNSIGNED_INT : d.type === 5123 ? gl.UNSIGNED_SHORT : gl.UNSIGNED_BYTE, 0);
    }
    gl.useProgram(lineProgram.p);
    gl.uniformMatrix4fv(lineProgram.u.uViewProj, false, viewProj);
    gl.enable(gl.BLEND);
    gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
    const lines = (set, on, depth) => {
      if (!on || !set.count) return;
      if (depth) gl.enable(gl.DEPTH_TEST); else gl.disable(gl.DEPTH_TEST);
      gl.bindVertexArray(set.vao);
      gl.drawArrays(gl.LINES, 0, set.count);
    };
    lines(portalLines, checkbox("portals").checked, true);
    lines(areaPortals, checkbox("areaportals").checked, false);
    lines(leakLines, checkbox("leak").checked, false); // the leak shows through walls
    gl.disable(gl.BLEND);
    gl.bindVertexArray(null);

    const where = leaf >= 0 ? `leaf ${leaf}  cluster ${cluster}  area ${area}` : "outside the tree";
    const sees = numClusters ? `  sees ${seesCount} of ${numClusters} clusters${frozen ? ` (frozen at ${shownCluster})` : ""}` : "  no PVS";
    statusEl.textContent = `${scene.triangles} triangles · (${cx.toFixed(0)} ${cy.toFixed(0)} ${cz.toFixed(0)}) yaw ${yaw.toFixed(0)} pitch ${pitch.toFixed(0)}\n` +
      `${where}${sees} · speed ${speed.toFixed(0)}` + (readyText ? `\n${readyText}` : "");
    drawn++;
    if (readyText && !document.title.startsWith("ready")) document.title = `${readyText}; leaf ${leaf} cluster ${cluster} sees ${seesCount}`;
  };
  requestAnimationFrame(frame);
}

main().catch((e) => fail(e.message || String(e)));
