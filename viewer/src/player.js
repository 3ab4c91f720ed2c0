// SPDX-License-Identifier: Apache-2.0
// gradyn's trajectory player: a three.js scene built from the model description `gradyn view`
// embeds in the page (geoms, meshes), body poses per frame, optional contact points, and the
// controls (play/pause, scrub, speed, contacts on/off, orbit camera).
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';

// MuJoCo's geom type codes (gdnGeomType)
const PLANE = 0, HFIELD = 1, SPHERE = 2, CAPSULE = 3, ELLIPSOID = 4, CYLINDER = 5, BOX = 6,
    MESH = 7;

// the page's state, readable by tests (window.gradynViewer)
const viewer = { ready: false, errors: [], frame: 0, nframe: 0 };
window.gradynViewer = viewer;

// errors of the page, kept for the status line and for tests
function reportError(message) {
  viewer.errors.push(String(message));
  const status = document.getElementById('gradyn-status');
  if (status) {
    status.textContent = 'error: ' + message;
  }
  document.body.dataset.status = 'error';
}

// the query of the page's address after '#': frame=K, paused=1, camera=px,py,pz,tx,ty,tz,
// fov=degrees (fixed views for tests and for links to one moment)
function hashOptions() {
  const options = {};
  for (const part of window.location.hash.replace(/^#/, '').split('&')) {
    const eq = part.indexOf('=');
    if (eq > 0) {
      options[decodeURIComponent(part.slice(0, eq))] = decodeURIComponent(part.slice(eq + 1));
    }
  }
  return options;
}

// a MuJoCo quaternion (w, x, y, z) at q[k..k+4) as three.js's (x, y, z, w)
function setQuat(target, q, k) {
  target.set(q[k + 1], q[k + 2], q[k + 3], q[k]);
}

// the three.js geometry of one geom, in the geom's own frame (MuJoCo's axes: capsules and
// cylinders along z); null for a type the viewer does not draw
function geomGeometry(g, meshes, extent) {
  const s = g.size;
  switch (g.type) {
    case PLANE: {
      // a zero half-size is an infinite plane: drawn over the scene's extent
      const hx = s[0] > 0 ? s[0] : extent, hy = s[1] > 0 ? s[1] : extent;
      return new THREE.PlaneGeometry(2 * hx, 2 * hy);
    }
    case SPHERE:
      return new THREE.SphereGeometry(s[0], 32, 16);
    case ELLIPSOID: {
      const geometry = new THREE.SphereGeometry(1, 32, 16);
      geometry.scale(s[0], s[1], s[2]);
      return geometry;
    }
    case CAPSULE: {
      const geometry = new THREE.CapsuleGeometry(s[0], 2 * s[1], 8, 24);
      geometry.rotateX(Math.PI / 2);
      return geometry;
    }
    case CYLINDER: {
      const geometry = new THREE.CylinderGeometry(s[0], s[0], 2 * s[1], 32);
      geometry.rotateX(Math.PI / 2);
      return geometry;
    }
    case BOX:
      return new THREE.BoxGeometry(2 * s[0], 2 * s[1], 2 * s[2]);
    case MESH: {
      const mesh = meshes[g.mesh];
      if (!mesh) {
        return null;
      }
      // one vertex per face corner so that the faces are drawn flat
      const positions = new Float32Array(mesh.face.length * 3);
      for (let i = 0; i < mesh.face.length; i++) {
        const v = mesh.face[i];
        positions[3 * i] = mesh.vert[3 * v];
        positions[3 * i + 1] = mesh.vert[3 * v + 1];
        positions[3 * i + 2] = mesh.vert[3 * v + 2];
      }
      const geometry = new THREE.BufferGeometry();
      geometry.setAttribute('position', new THREE.BufferAttribute(positions, 3));
      geometry.computeVertexNormals();
      return geometry;
    }
    default:
      return null; // HFIELD: not drawn (listed in the status line)
  }
}

// a checker texture for planes, so that motion over them can be seen
function checkerTexture(rgba) {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 64;
  const context = canvas.getContext('2d');
  const c = (f) => Math.round(255 * Math.min(1, Math.max(0, f)));
  const light = `rgb(${c(rgba[0])},${c(rgba[1])},${c(rgba[2])})`;
  const dark = `rgb(${c(rgba[0] * 0.8)},${c(rgba[1] * 0.8)},${c(rgba[2] * 0.8)})`;
  context.fillStyle = light;
  context.fillRect(0, 0, 64, 64);
  context.fillStyle = dark;
  context.fillRect(0, 0, 32, 32);
  context.fillRect(32, 32, 32, 32);
  const texture = new THREE.CanvasTexture(canvas);
  texture.wrapS = texture.wrapT = THREE.RepeatWrapping;
  texture.colorSpace = THREE.SRGBColorSpace;
  texture.magFilter = THREE.NearestFilter;
  return texture;
}

// the smallest box around every body origin of every frame, grown by the geoms' sizes
function sceneBounds(data) {
  const box = new THREE.Box3();
  const p = new THREE.Vector3();
  const { nbody, nframe, xpos } = data;
  for (let f = 0; f < nframe; f++) {
    for (let b = 1; b < nbody; b++) {
      const k = 3 * (f * nbody + b);
      box.expandByPoint(p.set(xpos[k], xpos[k + 1], xpos[k + 2]));
    }
  }
  let reach = 0;
  for (const g of data.geoms) {
    if (g.type !== PLANE && g.body > 0) {
      reach = Math.max(reach, g.rbound || 0);
    } else if (g.type !== PLANE) {
      box.expandByPoint(p.set(g.pos[0], g.pos[1], g.pos[2]));
    }
  }
  if (box.isEmpty()) {
    box.expandByPoint(p.set(0, 0, 0));
  }
  box.expandByScalar(Math.max(reach, 0.1));
  return box;
}

// the scene: one group per body (its geoms as children at their local poses), lights, contacts
function buildScene(data) {
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0xdde4ea);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x666666, 1.6));
  const sun = new THREE.DirectionalLight(0xffffff, 1.8);
  sun.position.set(0.4, -0.6, 1.0);
  scene.add(sun);

  const bounds = sceneBounds(data);
  const size = bounds.getSize(new THREE.Vector3());
  const extent = 4 * Math.max(size.x, size.y, size.z, 1);
  const bodies = [];
  for (let b = 0; b < data.nbody; b++) {
    const group = new THREE.Group();
    scene.add(group);
    bodies.push(group);
  }
  const skipped = {};
  for (const g of data.geoms) {
    const geometry = geomGeometry(g, data.meshes || [], extent);
    if (!geometry) {
      skipped[g.type] = (skipped[g.type] || 0) + 1;
      continue;
    }
    const color = new THREE.Color().setRGB(g.rgba[0], g.rgba[1], g.rgba[2], THREE.SRGBColorSpace);
    const material = new THREE.MeshLambertMaterial({
      color,
      transparent: g.rgba[3] < 1,
      opacity: g.rgba[3],
      side: g.type === PLANE ? THREE.DoubleSide : THREE.FrontSide,
    });
    if (g.type === PLANE) {
      material.color.setRGB(1, 1, 1);
      material.map = checkerTexture(g.rgba);
      const hx = g.size[0] > 0 ? g.size[0] : extent, hy = g.size[1] > 0 ? g.size[1] : extent;
      const tile = Math.max(size.x, size.y, 0.5) / 4;
      material.map.repeat.set(hx / tile, hy / tile);
    }
    const mesh = new THREE.Mesh(geometry, material);
    mesh.position.set(g.pos[0], g.pos[1], g.pos[2]);
    setQuat(mesh.quaternion, g.quat, 0);
    if (g.rgba[3] <= 0) {
      mesh.visible = false; // MuJoCo hides geoms of alpha 0
    }
    bodies[g.body].add(mesh);
  }

  // contact points: one instanced small sphere each, up to the most any frame has
  let contacts = null;
  if (data.contacts && data.contacts.maxcount > 0) {
    const radius = 0.015 * Math.max(size.x, size.y, size.z, 0.5);
    const geometry = new THREE.SphereGeometry(radius, 12, 8);
    const material = new THREE.MeshBasicMaterial({ color: 0xffaa00, depthTest: false });
    contacts = new THREE.InstancedMesh(geometry, material, data.contacts.maxcount);
    contacts.renderOrder = 1;
    contacts.frustumCulled = false;
    scene.add(contacts);
  }
  return { scene, bodies, bounds, contacts, skipped };
}

// put every body (and the contact points) where frame f has them
function showFrame(state, f) {
  const { data, bodies, contacts } = state;
  const nbody = data.nbody;
  for (let b = 0; b < nbody; b++) {
    const k = f * nbody + b;
    bodies[b].position.set(data.xpos[3 * k], data.xpos[3 * k + 1], data.xpos[3 * k + 2]);
    setQuat(bodies[b].quaternion, data.xquat, 4 * k);
  }
  if (contacts) {
    const c = data.contacts;
    const first = c.start[f], count = c.start[f + 1] - first;
    const matrix = new THREE.Matrix4();
    for (let i = 0; i < count; i++) {
      const k = 3 * (first + i);
      matrix.makeTranslation(c.pos[k], c.pos[k + 1], c.pos[k + 2]);
      contacts.setMatrixAt(i, matrix);
    }
    contacts.count = count;
    contacts.instanceMatrix.needsUpdate = true;
  }
  viewer.frame = f;
  state.slider.value = String(f);
  const ncon = contacts ? `, ${data.contacts.start[f + 1] - data.contacts.start[f]} contacts` : '';
  state.label.textContent =
      `t = ${data.time[f].toFixed(3)} s  (frame ${f + 1} / ${data.nframe}${ncon})`;
}

// the frame to show at trajectory time t: the last one whose time is <= t
function frameAtTime(time, t) {
  let lo = 0, hi = time.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (time[mid] <= t) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

// the controls under the view: play/pause, the frame slider, speed, contacts
function buildControls(data) {
  const bar = document.getElementById('gradyn-controls');
  const play = document.createElement('button');
  play.id = 'gradyn-play';
  const slider = document.createElement('input');
  slider.type = 'range';
  slider.min = '0';
  slider.max = String(Math.max(0, data.nframe - 1));
  slider.step = '1';
  slider.id = 'gradyn-slider';
  const speed = document.createElement('select');
  for (const s of [0.1, 0.25, 0.5, 1, 2, 4]) {
    const option = document.createElement('option');
    option.value = String(s);
    option.textContent = `${s}x`;
    option.selected = s === 1;
    speed.appendChild(option);
  }
  const label = document.createElement('span');
  label.id = 'gradyn-time';
  bar.append(play, slider, speed, label);
  let contactsBox = null;
  if (data.contacts) {
    const wrap = document.createElement('label');
    contactsBox = document.createElement('input');
    contactsBox.type = 'checkbox';
    contactsBox.checked = true;
    wrap.append(contactsBox, ' contacts');
    bar.appendChild(wrap);
  }
  return { play, slider, speed, label, contactsBox };
}

// the camera: a fixed view from the page's address, else one that frames the whole trajectory
function placeCamera(camera, controls, bounds, options) {
  if (options.camera) {
    const c = options.camera.split(',').map(Number);
    if (c.length === 6 && c.every(Number.isFinite)) {
      camera.position.set(c[0], c[1], c[2]);
      controls.target.set(c[3], c[4], c[5]);
      camera.lookAt(controls.target);
      return;
    }
    reportError('camera= needs 6 numbers: px,py,pz,tx,ty,tz');
  }
  const center = bounds.getCenter(new THREE.Vector3());
  const radius = Math.max(bounds.getSize(new THREE.Vector3()).length() / 2, 0.2);
  const distance = 0.8 * radius / Math.sin(THREE.MathUtils.degToRad(camera.fov / 2));
  const direction = new THREE.Vector3(1, -1.6, 0.9).normalize();
  camera.position.copy(center).addScaledVector(direction, distance);
  controls.target.copy(center);
  camera.lookAt(center);
}

// read the page's data, build everything, start the animation loop
function main() {
  const element = document.getElementById('gradyn-data');
  const data = JSON.parse(element.textContent);
  const options = hashOptions();
  const view = document.getElementById('gradyn-view');
  document.title = `gradyn view: ${data.model}`;

  const renderer = new THREE.WebGLRenderer({ antialias: true });
  renderer.setPixelRatio(window.devicePixelRatio || 1);
  view.appendChild(renderer.domElement);
  const fov = Number(options.fov) > 0 ? Number(options.fov) : 45;
  const camera = new THREE.PerspectiveCamera(fov, 1, 0.01, 1000);
  camera.up.set(0, 0, 1); // MuJoCo's z is up

  const built = buildScene(data);
  const ui = buildControls(data);
  const controls = new OrbitControls(camera, renderer.domElement);
  const span = built.bounds.getSize(new THREE.Vector3()).length();
  camera.near = Math.max(span * 1e-3, 1e-3);
  camera.far = Math.max(span * 100, 100);
  placeCamera(camera, controls, built.bounds, options);
  controls.update();

  const state = { data, ...built, slider: ui.slider, label: ui.label };
  viewer.nframe = data.nframe;
  let playing = data.nframe > 1 && options.paused !== '1';
  let playTime = 0; // trajectory time (from the first frame) of the frame being shown
  let last = null;

  // resize the canvas to its box
  const resize = () => {
    const width = view.clientWidth, height = view.clientHeight;
    renderer.setSize(width, height, false);
    renderer.domElement.style.width = '100%';
    renderer.domElement.style.height = '100%';
    camera.aspect = width / Math.max(height, 1);
    camera.updateProjectionMatrix();
  };
  const render = () => renderer.render(built.scene, camera);
  const setPlaying = (on) => {
    playing = on && data.nframe > 1;
    ui.play.textContent = playing ? 'pause' : 'play';
    last = null;
  };
  const setFrame = (f) => {
    const frame = Math.min(Math.max(0, Math.floor(f)), data.nframe - 1);
    showFrame(state, frame);
    playTime = data.time[frame] - data.time[0];
    render();
    return frame;
  };

  ui.play.addEventListener('click', () => setPlaying(!playing));
  ui.slider.addEventListener('input', () => {
    setPlaying(false);
    setFrame(Number(ui.slider.value));
  });
  if (ui.contactsBox) {
    ui.contactsBox.addEventListener('change', () => {
      built.contacts.visible = ui.contactsBox.checked;
      render();
    });
  }
  window.addEventListener('keydown', (event) => {
    if (event.key === ' ') {
      setPlaying(!playing);
      event.preventDefault();
    } else if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
      setPlaying(false);
      setFrame(viewer.frame + (event.key === 'ArrowRight' ? 1 : -1));
    }
  });
  window.addEventListener('resize', () => {
    resize();
    render();
  });
  controls.addEventListener('change', render);

  // the animation loop: advance the trajectory time by the wall time times the speed
  const tick = (now) => {
    if (playing) {
      if (last !== null) {
        const duration = data.time[data.nframe - 1] - data.time[0];
        playTime += ((now - last) / 1000) * Number(ui.speed.value);
        if (playTime > duration) {
          playTime = 0; // loop
        }
        showFrame(state, frameAtTime(data.time, data.time[0] + playTime));
      }
      last = now;
      render();
    }
    requestAnimationFrame(tick);
  };

  resize();
  setPlaying(playing);
  setFrame(options.frame !== undefined ? Number(options.frame) || 0 : 0);
  const notes = [];
  if (built.skipped[HFIELD]) {
    notes.push(`${built.skipped[HFIELD]} height field geom(s) not drawn`);
  }
  document.getElementById('gradyn-status').textContent = notes.join('; ');
  viewer.setFrame = setFrame;
  viewer.setPlaying = setPlaying;
  viewer.camera = camera;
  viewer.ready = true;
  document.body.dataset.status = viewer.errors.length ? 'error' : 'ready';
  requestAnimationFrame(tick);
}

window.addEventListener('error', (event) => reportError(event.message));
try {
  main();
} catch (error) {
  reportError(error && error.stack ? error.stack : error);
  throw error;
}
