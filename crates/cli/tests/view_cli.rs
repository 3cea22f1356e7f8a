//! `srcmap view` end to end: the server's answers, and the page in headless Chromium (the
//! example box room compiled by `srcmap compile`, and the corpus's largest BSP): it reports
//! ready with the mesh's triangle count and the leaf, cluster and PVS the map's own tree and
//! visibility give for the camera, and its screenshots are drawn and lit.
//! The Chromium part skips with a message when no Chromium is found (`$CHROMIUM`,
//! `chromium`, `chromium-browser`, `google-chrome`).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use srcmap_bsp::Bsp;
use srcmap_export::MapMesh;

fn srcmap() -> Command {
    Command::new(env!("CARGO_BIN_EXE_srcmap"))
}

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel)
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("srcmap-view-test-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run_ok(cmd: &mut Command) {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// A running `srcmap view`, stopped when dropped.
struct Server {
    child: Child,
    /// `127.0.0.1:PORT`
    addr: String,
}

impl Server {
    fn start(map: &Path) -> Server {
        let mut child = srcmap()
            .arg("view")
            .arg(map)
            .args(["--no-open", "--port", "0"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let at = line
            .find("http://")
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        let addr = line[at + 7..].split('/').next().unwrap().to_string();
        Server { child, addr }
    }

    fn url(&self, query: &str) -> String {
        format!("http://{}/{query}", self.addr)
    }

    /// The raw answer to `request` (status line, headers, body).
    fn ask(&self, request: &[u8]) -> Vec<u8> {
        let mut s = TcpStream::connect(&self.addr).unwrap();
        s.write_all(request).unwrap();
        let mut out = Vec::new();
        s.read_to_end(&mut out).unwrap();
        out
    }

    /// Status and body of `GET path`.
    fn get(&self, path: &str) -> (u16, Vec<u8>) {
        let raw = self.ask(format!("GET {path} HTTP/1.1\r\nHost: {}\r\n\r\n", self.addr).as_bytes());
        let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let status = String::from_utf8_lossy(&raw[9..12]).parse().unwrap();
        (status, raw[split + 4..].to_vec())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn compiled_box_room(dir: &Path) -> PathBuf {
    let bsp = dir.join("box_room.bsp");
    run_ok(
        srcmap()
            .arg("compile")
            .arg(repo("examples/box_room.vmf"))
            .arg("--materials")
            .arg(repo("examples/materials.json"))
            .arg("-o")
            .arg(&bsp)
            .arg("-q"),
    );
    bsp
}

fn scene_of(server: &Server) -> serde_json::Value {
    let (status, body) = server.get("/scene.json");
    assert_eq!(status, 200);
    serde_json::from_slice(&body).unwrap()
}

#[test]
fn server_answers_the_page_and_refuses_the_rest() {
    let dir = temp_dir("server");
    let map = compiled_box_room(&dir);
    let bsp = Bsp::parse(&std::fs::read(&map).unwrap()).unwrap();
    let server = Server::start(&map);
    for path in ["/", "/viewer.js", "/map.glb", "/pvs.bin", "/index.html?x=1"] {
        assert_eq!(server.get(path).0, 200, "{path}");
    }
    // The GLB is the export's: the same bytes `srcmap export` writes.
    let glb_path = dir.join("box_room.glb");
    run_ok(
        srcmap()
            .arg("export")
            .arg(&map)
            .arg("-o")
            .arg(&glb_path)
            .arg("-q"),
    );
    assert_eq!(server.get("/map.glb").1, std::fs::read(&glb_path).unwrap());
    // The PVS rows are the visibility lump's, decoded.
    let vis = bsp.visibility.as_ref().unwrap();
    assert_eq!(server.get("/pvs.bin").1, vis.pvs.concat());
    let scene = scene_of(&server);
    assert_eq!(scene["num_clusters"], vis.num_clusters);
    assert_eq!(scene["leafs"].as_array().unwrap().len(), bsp.leafs.len());
    // vbsp wrote the portal file beside the map: the page gets its portals.
    let prt = srcmap_vvis::portals::Portals::parse_prt(
        &std::fs::read_to_string(map.with_extension("prt")).unwrap(),
    )
    .unwrap();
    assert_eq!(scene["portals"].as_array().unwrap().len(), prt.portals.len());
    assert!(scene["leak"].is_null());

    for path in ["/nope", "/map.glb/x", "/../Cargo.toml"] {
        assert_eq!(server.get(path).0, 404, "{path}");
    }
    for bad in [
        &b"POST / HTTP/1.1\r\n\r\n"[..],
        b"\x00\xff garbage\r\n\r\n",
        b"GET\r\n\r\n",
        &[b'a'; 40000],
    ] {
        let answer = server.ask(bad);
        let status = String::from_utf8_lossy(answer.get(9..12).unwrap_or(b""));
        assert!(
            ["400", "405", "431"].contains(&&*status),
            "{status:?} for {:?}",
            &bad[..bad.len().min(20)]
        );
    }
    // Still serving after the bad requests.
    assert_eq!(server.get("/").0, 200);
}

#[test]
fn leak_path_beside_the_map_is_served() {
    let dir = temp_dir("leak");
    let map = dir.join("leak.bsp");
    let out = srcmap()
        .arg("vbsp")
        .arg(repo("testdata/maps/leak.vmf"))
        .arg("-o")
        .arg(&map)
        .arg("--allowleak")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lin = std::fs::read_to_string(map.with_extension("lin")).unwrap();
    let points = srcmap_view::parse_lin(&lin).unwrap();
    assert!(points.len() >= 2);
    let server = Server::start(&map);
    let scene = scene_of(&server);
    let served: Vec<f64> = serde_json::from_value(scene["leak"].clone()).unwrap();
    assert_eq!(served, points.concat());
    // No light was run: the page says so.
    let notes = scene["notes"].to_string();
    assert!(notes.contains("no lighting"), "{notes}");
}

// ---- headless Chromium, driven through the DevTools protocol ----

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |d| d.join(name)))
        .find(|p| p.is_file())
}

/// A headless Chromium and a DevTools connection (WebSocket) to its page.
struct Browser {
    child: Child,
    socket: TcpStream,
    next_id: u64,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Standard base64 (the protocol's screenshots), padding ignored.
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let digits: Vec<u8> = text.bytes().filter(|&c| c != b'=').map(value).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &d)| acc | (d as u32) << (18 - 6 * i));
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

/// The body of an HTTP GET to the DevTools endpoint (which keeps the connection open: the
/// body is read by its length).
fn http_get(addr: &str, path: &str) -> String {
    let s = TcpStream::connect(addr).unwrap();
    let mut reader = BufReader::new(s.try_clone().unwrap());
    write!(&s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap();
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).unwrap();
    String::from_utf8(body).unwrap()
}

impl Browser {
    fn start(binary: &Path, dir: &Path) -> Browser {
        let mut child = Command::new(binary)
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-dev-shm-usage",
                "--use-angle=swiftshader",
                "--enable-unsafe-swiftshader",
                "--hide-scrollbars",
                "--window-size=640,480",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", dir.join("profile").display()))
            .arg("about:blank")
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let ws = lines
            .by_ref()
            .map_while(Result::ok)
            .find_map(|l| {
                l.split_once("DevTools listening on ws://")
                    .map(|(_, u)| u.trim().to_string())
            })
            .expect("Chromium printed its DevTools address");
        // Keep draining its log so that it never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        let addr = ws.split('/').next().unwrap().to_string();
        let targets: serde_json::Value = serde_json::from_str(&http_get(&addr, "/json/list")).unwrap();
        let page = targets
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["type"] == "page")
            .expect("a page target");
        let path = page["webSocketDebuggerUrl"]
            .as_str()
            .unwrap()
            .splitn(4, '/')
            .nth(3)
            .unwrap()
            .to_string();
        let mut socket = TcpStream::connect(&addr).unwrap();
        write!(
            socket,
            "GET /{path} HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: c3JjbWFwIHZpZXcgdGVzdA==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        .unwrap();
        let mut head = Vec::new();
        while !head.ends_with(b"\r\n\r\n") {
            let mut b = [0u8];
            socket.read_exact(&mut b).unwrap();
            head.push(b[0]);
        }
        assert!(
            head.starts_with(b"HTTP/1.1 101"),
            "{}",
            String::from_utf8_lossy(&head)
        );
        Browser {
            child,
            socket,
            next_id: 1,
        }
    }

    fn send_frame(&mut self, payload: &[u8]) {
        let mut frame = vec![0x81u8]; // final text frame
        match payload.len() {
            n if n < 126 => frame.push(0x80 | n as u8),
            n if n < 65536 => {
                frame.push(0x80 | 126);
                frame.extend_from_slice(&(n as u16).to_be_bytes());
            }
            n => {
                frame.push(0x80 | 127);
                frame.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        let mask = [0x5a, 0x17, 0xc3, 0x2e];
        frame.extend_from_slice(&mask);
        frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        self.socket.write_all(&frame).unwrap();
    }

    /// One whole message (frames joined).
    fn read_message(&mut self) -> Vec<u8> {
        let mut message = Vec::new();
        loop {
            let mut h = [0u8; 2];
            self.socket.read_exact(&mut h).unwrap();
            let len = match h[1] & 0x7f {
                126 => {
                    let mut b = [0u8; 2];
                    self.socket.read_exact(&mut b).unwrap();
                    u16::from_be_bytes(b) as usize
                }
                127 => {
                    let mut b = [0u8; 8];
                    self.socket.read_exact(&mut b).unwrap();
                    u64::from_be_bytes(b) as usize
                }
                n => n as usize,
            };
            let mut payload = vec![0u8; len];
            self.socket.read_exact(&mut payload).unwrap();
            message.extend_from_slice(&payload);
            if h[0] & 0x80 != 0 {
                return message;
            }
        }
    }

    /// Calls a protocol method and returns its result (events in between are skipped).
    fn call(&mut self, method: &str, params: serde_json::Value) -> serde_json::Value {
        let id = self.next_id;
        self.next_id += 1;
        let request = serde_json::json!({"id": id, "method": method, "params": params});
        self.send_frame(request.to_string().as_bytes());
        loop {
            let reply: serde_json::Value = serde_json::from_slice(&self.read_message()).unwrap();
            if reply["id"] == id {
                assert!(reply["error"].is_null(), "{method}: {reply}");
                return reply["result"].clone();
            }
        }
    }

    /// Opens `url` and waits until the page's title says it is ready (or failed); returns the
    /// title and the wall-clock seconds it took. The wait is bounded only as a guard against
    /// a hang, at a limit far above any expected load.
    fn open(&mut self, url: &str) -> (String, f64) {
        // The previous page's "ready" title must not be taken for the new page's.
        self.call(
            "Runtime.evaluate",
            serde_json::json!({"expression": "document.title = 'navigating'"}),
        );
        let start = std::time::Instant::now();
        self.call("Page.navigate", serde_json::json!({"url": url}));
        loop {
            let title = self.call(
                "Runtime.evaluate",
                serde_json::json!({"expression": "document.title", "returnByValue": true}),
            )["result"]["value"]
                .as_str()
                .unwrap_or("")
                .to_string();
            if title.starts_with("ready") || title.starts_with("error") {
                return (title, start.elapsed().as_secs_f64());
            }
            assert!(
                start.elapsed().as_secs() < 120,
                "the page did not load: {title:?}"
            );
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
    }

    /// The page as RGB8 pixels: (width, height, pixels).
    fn screenshot(&mut self, path: &Path) -> (u32, u32, Vec<u8>) {
        let data = self.call("Page.captureScreenshot", serde_json::json!({"format": "png"}));
        let png_bytes = base64_decode(data["data"].as_str().unwrap());
        std::fs::write(path, &png_bytes).unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        let channels = info.color_type.samples();
        let rgb = buf[..info.buffer_size()]
            .chunks_exact(channels)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect();
        (info.width, info.height, rgb)
    }

    /// Opens `url`, checks that it got ready, and takes its screenshot.
    fn shot(&mut self, url: &str, path: &Path) -> (u32, u32, Vec<u8>) {
        let (title, _) = self.open(url);
        assert!(title.starts_with("ready"), "{url}: {title}");
        self.screenshot(path)
    }
}

/// What a screenshot shows: the share of pixels that are not the page's clear colour, the
/// number of distinct colours, the mean brightness (0-255) and its standard deviation.
struct Picture {
    drawn_share: f64,
    colours: usize,
    mean: f64,
    deviation: f64,
}

fn picture((w, h, rgb): &(u32, u32, Vec<u8>)) -> Picture {
    const CLEAR: [i32; 3] = [32, 36, 43];
    let pixels: Vec<[u8; 3]> = rgb.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect();
    assert_eq!(pixels.len(), (*w * *h) as usize);
    let drawn = pixels
        .iter()
        .filter(|p| p.iter().zip(CLEAR).any(|(&c, k)| (c as i32 - k).abs() > 6))
        .count();
    let colours = pixels.iter().collect::<std::collections::HashSet<_>>().len();
    let lum: Vec<f64> = pixels
        .iter()
        .map(|p| p.iter().map(|&c| c as f64).sum::<f64>() / 3.0)
        .collect();
    let mean = lum.iter().sum::<f64>() / lum.len() as f64;
    let deviation = (lum.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / lum.len() as f64).sqrt();
    Picture {
        drawn_share: drawn as f64 / pixels.len() as f64,
        colours,
        mean,
        deviation,
    }
}

/// `ready T triangles in M ms; leaf L cluster C sees N` → (T, L, C, N).
fn parse_title(title: &str) -> (usize, i64, i64, usize) {
    let words: Vec<&str> = title.split([' ', ';']).filter(|w| !w.is_empty()).collect();
    assert_eq!(words.first(), Some(&"ready"), "page not ready: {title:?}");
    let after = |key: &str| -> &str {
        let i = words
            .iter()
            .position(|w| *w == key)
            .unwrap_or_else(|| panic!("{key} in {title:?}"));
        words[i + 1]
    };
    (
        words[1].parse().unwrap(),
        after("leaf").parse().unwrap(),
        after("cluster").parse().unwrap(),
        after("sees").parse().unwrap(),
    )
}

/// The page's report against the map's own data: triangles of the mesh, the leaf the BSP's
/// tree holds the camera in, and the number of clusters its PVS row marks.
fn check_title(bsp: &Bsp, scene: &serde_json::Value, title: &str) -> i64 {
    let (triangles, leaf, cluster, sees) = parse_title(title);
    assert_eq!(triangles, MapMesh::build(bsp, false).triangles, "{title}");
    let cam: Vec<f64> = serde_json::from_value(scene["camera"].clone()).unwrap();
    let expected_leaf = bsp.leaf_index_at(0, [cam[0], cam[1], cam[2]]).unwrap();
    assert_eq!(leaf, expected_leaf as i64, "{title}");
    assert_eq!(cluster, bsp.leafs[expected_leaf].cluster as i64, "{title}");
    let expected_sees = match (&bsp.visibility, usize::try_from(cluster)) {
        (Some(vis), Ok(c)) => (0..vis.num_clusters as usize)
            .filter(|&j| vis.can_see(c, j))
            .count(),
        _ => 0,
    };
    assert_eq!(sees, expected_sees, "{title}");
    cluster
}

#[test]
fn box_room_in_headless_chromium_is_ready_drawn_and_lit() {
    let Some(binary) = chromium() else {
        eprintln!(
            "no Chromium found ($CHROMIUM, chromium, chromium-browser, google-chrome): skipping the viewer test"
        );
        return;
    };
    let dir = temp_dir("chromium-box");
    let map = compiled_box_room(&dir);
    let bsp = Bsp::parse(&std::fs::read(&map).unwrap()).unwrap();
    let server = Server::start(&map);
    let scene = scene_of(&server);
    let mut browser = Browser::start(&binary, &dir);
    let (title, _) = browser.open(&server.url(""));
    let cluster = check_title(&bsp, &scene, &title);
    assert!(cluster >= 0, "the player start is inside the room");

    let lit = browser.shot(&server.url("?hud=0&pvs=0"), &dir.join("lit.png"));
    let fullbright = browser.shot(
        &server.url("?hud=0&pvs=0&shading=fullbright"),
        &dir.join("fullbright.png"),
    );
    let lightmap = browser.shot(
        &server.url("?hud=0&pvs=0&shading=lightmap"),
        &dir.join("lightmap.png"),
    );
    let (p_lit, p_full, p_light) = (picture(&lit), picture(&fullbright), picture(&lightmap));
    // Inside a closed room every pixel is a wall.
    for (name, p) in [("lit", &p_lit), ("fullbright", &p_full), ("lightmap", &p_light)] {
        assert!(p.drawn_share > 0.95, "{name}: {:.2} drawn", p.drawn_share);
        assert!(p.mean > 25.0, "{name}: mean brightness {:.1}", p.mean);
    }
    // The light falls off across the walls: the lightmaps vary, in many shades.
    assert!(
        p_light.deviation > 8.0,
        "lightmap deviation {:.1}",
        p_light.deviation
    );
    assert!(p_light.colours > 100, "lightmap colours {}", p_light.colours);
    assert!(p_lit.colours > 100, "lit colours {}", p_lit.colours);
    // Lit is the material times the lightmap, not the fullbright picture.
    let differing = lit
        .2
        .chunks_exact(3)
        .zip(fullbright.2.chunks_exact(3))
        .filter(|(a, b)| a.iter().zip(b.iter()).any(|(&x, &y)| x.abs_diff(y) > 12))
        .count();
    assert!(
        differing > lit.2.len() / 3 / 4,
        "lit and fullbright look alike ({differing} pixels differ)"
    );
    drop(browser);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The corpus's largest BSP (`background01`, one cluster) and the one with the most triangles
/// and a real PVS (`mvm_kelly_rc1b`, 670 clusters).
#[test]
fn largest_corpus_maps_in_headless_chromium_are_ready_and_drawn() {
    let Some(root) = srcmap_corpus::root("the viewer's corpus map test") else {
        return;
    };
    let Some(binary) = chromium() else {
        eprintln!(
            "no Chromium found ($CHROMIUM, chromium, chromium-browser, google-chrome): skipping the viewer test"
        );
        return;
    };
    let dir = temp_dir("chromium-corpus");
    let mut browser = Browser::start(&binary, &dir);
    for name in ["background01", "mvm_kelly_rc1b"] {
        let map = root.join(format!("bsp/iassis+tf2-fastdl/{name}.bsp"));
        let bsp = Bsp::parse(&std::fs::read(&map).unwrap()).unwrap();
        let server = Server::start(&map);
        let scene = scene_of(&server);
        let (title, seconds) = browser.open(&server.url(""));
        // A figure for the report, not an assertion.
        eprintln!("{name}: {title}; {seconds:.2} s from navigation to ready");
        check_title(&bsp, &scene, &title);
        let p = picture(&browser.screenshot(&dir.join(format!("{name}.png"))));
        assert!(p.drawn_share > 0.5, "{name}: {:.2} drawn", p.drawn_share);
        assert!(p.colours > 1000, "{name}: {} colours", p.colours);
        assert!(p.mean > 25.0, "{name}: mean brightness {:.1}", p.mean);
    }
    drop(browser);
    let _ = std::fs::remove_dir_all(&dir);
}
