//! Loads the package's pages in headless Chromium through WebDriver and reads
//! their verdicts. Needs Chromium, chromedriver and the built package
//! (`scripts/build-web.sh`). `scripts/test-web.sh` runs the bench page's test
//! (`--ignored` here) and prints its table: `MSM_PAGE_QUERY='logn=10&reps=5'`
//! measures. The circom page's test is longer (minutes on a software
//! adapter, compiling G1's and G2's pipelines) and runs alone:
//! `cargo test --workspace --test page -- --ignored snarkjs_page`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

fn www() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("www")
}

/// The repository's root: the circom page reads snarkjs from msm-wasm/node
/// and the fixtures from msm-circom.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Serves the repository's root over HTTP on a free port (GET only, one thread per request).
fn serve() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || respond(stream));
        }
    });
    port
}

fn respond(mut stream: TcpStream) {
    let mut request_line = String::new();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    let path = request_line.split_whitespace().nth(1).unwrap_or("/");
    let path = path.split('?').next().unwrap().trim_start_matches('/');
    let file = root().join(path);
    let (status, body) = match (path.contains(".."), std::fs::read(&file)) {
        (false, Ok(body)) => ("200 OK", body),
        _ => ("404 Not Found", b"not found".to_vec()),
    };
    let kind = match file.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html",
        Some("js") => "text/javascript",
        Some("wasm") => "application/wasm",
        _ => "application/octet-stream",
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(&body));
}

/// One WebDriver command (HTTP/1.1, Connection: close).
fn webdriver(port: u16, method: &str, path: &str, body: &Value) -> Value {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("chromedriver reachable");
    let body = body.to_string();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    // The answer's body by Content-Length or chunks (chromedriver may keep the
    // connection open).
    let mut reader = BufReader::new(stream);
    let mut length = None;
    let mut chunked = false;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse::<usize>().ok();
        }
        chunked |= lower.starts_with("transfer-encoding:") && lower.contains("chunked");
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).unwrap();
            let size = usize::from_str_radix(size.trim(), 16).unwrap();
            let mut chunk = vec![0u8; size + 2];
            reader.read_exact(&mut chunk).unwrap();
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else {
        let mut buf = vec![0u8; length.expect("a Content-Length")];
        reader.read_exact(&mut buf).unwrap();
        body = buf;
    }
    serde_json::from_slice(&body)
        .unwrap_or_else(|e| panic!("WebDriver answer {:?}: {e}", String::from_utf8_lossy(&body)))
}

struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Headless Chromium (WebGPU on, SwiftShader where there is no GPU) in one
/// WebDriver session, and the HTTP server its pages come from.
struct Browser {
    http: u16,
    port: u16,
    id: String,
    profile: PathBuf,
    _driver: Driver,
}

impl Browser {
    fn start() -> Self {
        assert!(
            www().join("pkg/msm_wasm_bg.wasm").exists(),
            "the package is not built: run scripts/build-web.sh"
        );
        let http = serve();
        let port = free_port();
        let chromedriver = std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".into());
        let driver = Driver(
            Command::new(chromedriver)
                .arg(format!("--port={port}"))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("chromedriver starts"),
        );
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(start.elapsed() < Duration::from_secs(30), "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
        let profile = std::env::temp_dir().join(format!("msm-page-test-{}-{http}", std::process::id()));
        let mut args: Vec<String> = [
            "--headless",
            "--enable-unsafe-webgpu",
            "--no-sandbox",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-quic",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.push(format!("--user-data-dir={}", profile.display()));
        // e.g. `--enable-logging --log-file=chrome.log` to see the GPU process
        if let Ok(more) = std::env::var("MSM_PAGE_CHROME_ARGS") {
            args.extend(more.split_whitespace().map(String::from));
        }
        let session = webdriver(
            port,
            "POST",
            "/session",
            &json!({"capabilities": {"alwaysMatch": {"goog:chromeOptions": {"args": args}}}}),
        );
        let id = session["value"]["sessionId"]
            .as_str()
            .expect("a WebDriver session")
            .to_string();
        Browser {
            http,
            port,
            id,
            profile,
            _driver: driver,
        }
    }

    /// Opens a page of the repository (a path from its root, with a query).
    fn open(&self, page: &str) {
        let url = format!("http://127.0.0.1:{}/{page}", self.http);
        let path = format!("/session/{}/url", self.id);
        webdriver(self.port, "POST", &path, &json!({ "url": url }));
    }

    /// The value of a script run on the page.
    fn read(&self, script: &str) -> Value {
        let path = format!("/session/{}/execute/sync", self.id);
        webdriver(self.port, "POST", &path, &json!({"script": script, "args": []}))["value"].clone()
    }

    /// Waits until the body's `data-state` is one of `ends`, printing
    /// `progress`'s value every 15 s; panics after `limit`.
    fn wait(&self, ends: &[&str], progress: &str, limit: Duration) -> String {
        let start = Instant::now();
        loop {
            let state = self.read("return document.body.dataset.state");
            let state = state.as_str().unwrap_or_default().to_string();
            if ends.contains(&state.as_str()) {
                return state;
            }
            assert!(start.elapsed() < limit, "the page did not finish in {limit:?}");
            if start.elapsed().as_secs().is_multiple_of(15) {
                eprintln!("page: {state} {}", self.read(progress));
            }
            std::thread::sleep(Duration::from_secs(1));
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let path = format!("/session/{}", self.id);
        webdriver(self.port, "DELETE", &path, &json!({}));
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

#[test]
#[ignore = "needs Chromium, chromedriver and scripts/build-web.sh; run by scripts/test-web.sh"]
fn bench_page_reports_correct() {
    let browser = Browser::start();
    // MSM_PAGE_QUERY runs other sizes or knobs (measurements); the test's
    // default is small and uses non-default knobs.
    let query = std::env::var("MSM_PAGE_QUERY").unwrap_or_else(|_| "logn=8&reps=2&ws=4&wtpb=64".into());
    browser.open(&format!("msm-wasm/www/index.html?{query}"));
    let state = browser.wait(
        &["done", "error"],
        "return document.getElementById('status').textContent",
        Duration::from_secs(900),
    );
    let verdict = browser.read("return document.getElementById('verdict').textContent");
    let error = browser.read("return document.getElementById('error').textContent");
    let table = browser.read("return document.getElementById('rows').innerText");
    println!("{}", table.as_str().unwrap_or_default());
    assert_eq!(state, "done", "page error: {error}");
    assert_eq!(verdict, "correct");
}

/// The circom page proves in a Web Worker with every MSM on WebGPU and
/// snarkjs verifies each proof. The default is the fixture circuit with the
/// package's prover, one proof each way; `MSM_SNARKJS_PAGE_QUERY` proves
/// another circuit (`zkey=/path&wtns=/path&reps=3&prover=package`, paths
/// from the repository's root) or with snarkjs (`prover=snarkjs`).
#[test]
#[ignore = "minutes on a software adapter; needs scripts/build-web.sh and scripts/setup-dawn.sh (snarkjs)"]
fn snarkjs_page_proves() {
    assert!(
        root()
            .join("msm-wasm/node/node_modules/snarkjs/build/snarkjs.min.js")
            .exists(),
        "snarkjs is not installed: run scripts/setup-dawn.sh"
    );
    let queries = match std::env::var("MSM_SNARKJS_PAGE_QUERY") {
        Ok(q) => vec![q],
        Err(_) => vec![
            "reps=1&prover=package&start".into(),
            "reps=1&prover=snarkjs&start".into(),
        ],
    };
    let browser = Browser::start();
    for query in queries {
        browser.open(&format!("msm-wasm/www/snarkjs.html?{query}"));
        let state = browser.wait(
            &["done", "failed"],
            "return document.getElementById('log').textContent.split('\\n').slice(-2)[0]",
            Duration::from_secs(3600),
        );
        let log = browser.read("return document.getElementById('log').textContent");
        let log = log.as_str().unwrap_or_default();
        println!("{query}\n{log}");
        assert_eq!(state, "done", "{query}: {log}");
        let events: Vec<Value> = log.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
        let want = query
            .split('&')
            .find_map(|kv| kv.strip_prefix("reps="))
            .map_or(3, |r| r.parse().unwrap());
        let prover = if query.contains("prover=snarkjs") {
            "snarkjs"
        } else {
            "package"
        };
        let proofs: Vec<&Value> = events.iter().filter(|e| e["event"] == "proof").collect();
        assert_eq!(proofs.len(), want, "{query}: {log}");
        for p in proofs {
            assert_eq!(p["verified"], true, "{query}: {p}");
            assert_eq!(p["prover"], prover, "{query}: {p}");
        }
        let accelerated = events
            .iter()
            .find(|e| e["event"] == "accelerated")
            .expect("accelerated");
        assert_eq!(accelerated["gpu"], true, "{query}: no WebGPU: {accelerated}");
    }
}

/// The npm package `scripts/build-web.sh` emits: package.json carries the
/// crate's name, version and license, and lists only files that were built,
/// its module and types among them; the types declare `msmBatch`.
#[test]
#[ignore = "needs scripts/build-web.sh; run by scripts/test-web.sh"]
fn package_lists_the_built_files() {
    let pkg = www().join("pkg");
    let text = std::fs::read(pkg.join("package.json")).expect("the package is built: run scripts/build-web.sh");
    let json: Value = serde_json::from_slice(&text).expect("package.json is JSON");
    assert_eq!(json["name"], env!("CARGO_PKG_NAME"));
    assert_eq!(json["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(json["license"], env!("CARGO_PKG_LICENSE"));
    assert_eq!(json["description"], env!("CARGO_PKG_DESCRIPTION"));
    let files: Vec<&str> = json["files"]
        .as_array()
        .expect("a files list")
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    for f in &files {
        assert!(pkg.join(f).exists(), "{f} is listed but was not built");
    }
    for key in ["module", "types"] {
        let f = json[key].as_str().unwrap_or_else(|| panic!("no {key}"));
        assert!(files.contains(&f), "{key} {f} is not in files");
    }
    let types = std::fs::read_to_string(pkg.join("msm_wasm.d.ts")).unwrap();
    assert!(
        types.contains("msmBatch(bases: Bases, vectors: Uint8Array[], options?: MsmOptions): Promise<MsmResult[]>;"),
        "msmBatch's types"
    );
}
