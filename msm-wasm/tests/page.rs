//! Loads the bench page in headless Chromium through WebDriver and reads its
//! verdict. Needs Chromium, chromedriver and the built page
//! (`scripts/build-web.sh`); `scripts/test-web.sh` runs it (`--ignored` here).
//! Prints the page's table: `MSM_PAGE_QUERY='logn=10&reps=5'` measures.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

fn www() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("www")
}

/// Serves `www` over HTTP on a free port (GET only, one thread per request).
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
    let path = if path.is_empty() { "index.html" } else { path };
    let file = www().join(path);
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

#[test]
#[ignore = "needs Chromium, chromedriver and scripts/build-web.sh; run by scripts/test-web.sh"]
fn bench_page_reports_correct() {
    assert!(
        www().join("pkg/msm_wasm_bg.wasm").exists(),
        "the page is not built: run scripts/build-web.sh"
    );
    let http = serve();
    let driver_port = free_port();
    let chromedriver = std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".into());
    let _driver = Driver(
        Command::new(chromedriver)
            .arg(format!("--port={driver_port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts"),
    );
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", driver_port)).is_err() {
        assert!(start.elapsed() < Duration::from_secs(30), "chromedriver did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    let profile = std::env::temp_dir().join(format!("msm-page-test-{}", std::process::id()));
    let args = [
        "--headless",
        "--enable-unsafe-webgpu",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
    ];
    let mut args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    args.push(format!("--user-data-dir={}", profile.display()));
    let session = webdriver(
        driver_port,
        "POST",
        "/session",
        &json!({"capabilities": {"alwaysMatch": {"goog:chromeOptions": {"args": args}}}}),
    );
    let id = session["value"]["sessionId"]
        .as_str()
        .expect("a WebDriver session")
        .to_string();
    // MSM_PAGE_QUERY runs other sizes or knobs (measurements); the test's
    // default is small and uses non-default knobs.
    let query = std::env::var("MSM_PAGE_QUERY").unwrap_or_else(|_| "logn=8&reps=2&ws=4&wtpb=64".into());
    let url = format!("http://127.0.0.1:{http}/index.html?{query}");
    webdriver(
        driver_port,
        "POST",
        &format!("/session/{id}/url"),
        &json!({ "url": url }),
    );
    let read = |script: &str| {
        webdriver(
            driver_port,
            "POST",
            &format!("/session/{id}/execute/sync"),
            &json!({"script": script, "args": []}),
        )["value"]
            .clone()
    };
    let start = Instant::now();
    let state = loop {
        let state = read("return document.body.dataset.state");
        if state == "done" || state == "error" {
            break state;
        }
        assert!(start.elapsed() < Duration::from_secs(900), "the page did not finish");
        if start.elapsed().as_secs().is_multiple_of(15) {
            let status = read("return document.getElementById('status').textContent");
            eprintln!("page: {state} {status}");
        }
        std::thread::sleep(Duration::from_secs(1));
    };
    let verdict = read("return document.getElementById('verdict').textContent");
    let error = read("return document.getElementById('error').textContent");
    let table = read("return document.getElementById('rows').innerText");
    webdriver(driver_port, "DELETE", &format!("/session/{id}"), &json!({}));
    let _ = std::fs::remove_dir_all(&profile);
    println!("{}", table.as_str().unwrap_or_default());
    assert_eq!(state, "done", "page error: {error}");
    assert_eq!(verdict, "correct");
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
