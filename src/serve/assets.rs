//! The page: plain HTML, CSS and JavaScript modules kept in `src/serve/web/` and embedded in
//! the binary, so the inspector works offline and needs no build step. No file is fetched
//! from anywhere else (the content security policy says so to the browser too).

/// The content security policy of the page: its own scripts, styles and API only.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; img-src 'self' blob: data:; \
    style-src 'self'; script-src 'self'; connect-src 'self'; object-src 'none'; \
    base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// Every file of the page: name, content type, text.
const FILES: &[(&str, &str, &str)] = &[
    (
        "index.html",
        "text/html; charset=utf-8",
        include_str!("web/index.html"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("web/style.css"),
    ),
    (
        "api.js",
        "text/javascript; charset=utf-8",
        include_str!("web/api.js"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("web/app.js"),
    ),
    (
        "model.js",
        "text/javascript; charset=utf-8",
        include_str!("web/model.js"),
    ),
    (
        "capture.js",
        "text/javascript; charset=utf-8",
        include_str!("web/capture.js"),
    ),
    (
        "pixels.js",
        "text/javascript; charset=utf-8",
        include_str!("web/pixels.js"),
    ),
];

/// The file `name` (exactly as listed: no paths), with its content type.
pub fn get(name: &str) -> Option<(&'static str, &'static str)> {
    FILES
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|&(_, ct, body)| (ct, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_module_the_page_imports_is_embedded() {
        for (name, _, body) in FILES {
            for line in body.lines() {
                let Some(at) = line.find("from './") else {
                    continue;
                };
                let rest = &line[at + 8..];
                let file = &rest[..rest.find('\'').unwrap_or(rest.len())];
                assert!(
                    get(file).is_some(),
                    "{name} imports {file}, which is not embedded"
                );
            }
        }
        assert!(get("../mod.rs").is_none() && get("index.html").is_some());
    }
}
