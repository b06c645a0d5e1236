//! `egret ui`: a REST API and a web UI over the topologies of a local
//! cluster (docs/observing.md).
//!
//! - `/api/egret/...`: Egret's own API: topologies, logical plan, packing and
//!   physical plans, per-component statistics with capacity and the
//!   bottleneck, edges with live rates, the last hour of metrics at a fixed
//!   resolution ([`series`]), backpressure, reported errors, the tail of a
//!   process's log.
//! - `/api/v1/...`: the shape of Storm UI's REST API ([`storm`]).
//! - `/`: the web UI, its assets embedded in the binary.
//!
//! Invariants: every read is answered from the state manager's files and
//! the topology masters at the time of the request (nothing is cached but
//! the bounded series); a mutating call (kill, activate, deactivate) reaches
//! a master only with the server's credentials ([`auth`]).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use egret_proto::v1::{DetachedKillRequest, Empty, RebalanceRequest, client_request};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tracing::info;

pub mod auth;
pub mod series;
pub mod source;
pub mod storm;
pub mod view;

use auth::Credentials;
use series::SeriesStore;
pub use source::Source;
use view::{MASTER_TIMEOUT, TopologyView};

/// The default address: loopback only.
pub const DEFAULT_BIND: &str = "127.0.0.1:8080";

#[derive(Debug, thiserror::Error)]
pub enum UiError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    BadRequest(String),
    #[error("the state manager: {0}")]
    State(String),
    #[error("the topology master did not answer: {0}")]
    Master(String),
    #[error("the topology master refused: {0}")]
    Refused(String),
    #[error("{0}")]
    Credentials(String),
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("the server failed: {0}")]
    Serve(#[source] std::io::Error),
}

impl UiError {
    pub fn state(e: impl std::fmt::Display) -> Self {
        Self::State(e.to_string())
    }

    fn status(&self) -> StatusCode {
        match self {
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::BadRequest(_) | Self::Refused(_) => StatusCode::BAD_REQUEST,
            Self::Master(_) => StatusCode::BAD_GATEWAY,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl IntoResponse for UiError {
    fn into_response(self) -> Response {
        let status = self.status();
        // Storm UI's error body: {"error": reason, "errorMessage": text}.
        let body = json!({
            "error": status.canonical_reason().unwrap_or("error"),
            "errorMessage": self.to_string(),
        });
        (status, axum::Json(body)).into_response()
    }
}

type ApiResult = Result<axum::Json<Value>, UiError>;

#[derive(Clone)]
struct AppState {
    source: Source,
    credentials: Option<Arc<Credentials>>,
    series: SeriesStore,
}

pub struct UiServer {
    listener: TcpListener,
    state: AppState,
}

impl UiServer {
    /// Binds `addr`; `credentials` enable the mutating calls.
    pub async fn bind(
        addr: SocketAddr,
        source: Source,
        credentials: Option<Credentials>,
    ) -> Result<Self, UiError> {
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| UiError::Listen { addr, source })?;
        Ok(Self {
            listener,
            state: AppState {
                source,
                credentials: credentials.map(Arc::new),
                series: SeriesStore::default(),
            },
        })
    }

    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves until the process ends; samples the series meanwhile.
    pub async fn serve(self) -> Result<(), UiError> {
        let sampler = self.state.series.clone().run(self.state.source.clone());
        let sampling = tokio::spawn(sampler);
        if let Ok(addr) = self.listener.local_addr() {
            info!(%addr, mutating = self.state.credentials.is_some(), "Serving the UI and its REST API.");
        }
        let served = axum::serve(self.listener, router(self.state)).await;
        sampling.abort();
        served.map_err(UiError::Serve)
    }
}

fn router(state: AppState) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/assets/{file}", get(asset))
        // Storm UI's shape.
        .route("/api/v1/cluster/summary", get(storm_cluster))
        .route("/api/v1/topology/summary", get(storm_topologies))
        .route("/api/v1/topology/{id}", get(storm_topology))
        .route(
            "/api/v1/topology/{id}/component/{component}",
            get(storm_component),
        )
        .route("/api/v1/topology/{id}/activate", post(storm_activate))
        .route("/api/v1/topology/{id}/deactivate", post(storm_deactivate))
        .route("/api/v1/topology/{id}/kill/{wait}", post(storm_kill))
        .route(
            "/api/v1/topology/{id}/rebalance/{wait}",
            post(storm_rebalance),
        )
        // Egret's own.
        .route("/api/egret/topologies", get(topologies))
        .route("/api/egret/topologies/{name}", get(overview))
        .route("/api/egret/topologies/{name}/logical", get(logical))
        .route("/api/egret/topologies/{name}/packing", get(packing))
        .route("/api/egret/topologies/{name}/physical", get(physical))
        .route("/api/egret/topologies/{name}/metrics", get(metrics))
        .route("/api/egret/topologies/{name}/series", get(series_of))
        .route(
            "/api/egret/topologies/{name}/backpressure",
            get(backpressure),
        )
        .route("/api/egret/topologies/{name}/errors", get(errors))
        .route("/api/egret/topologies/{name}/logs", get(log_list))
        .route("/api/egret/topologies/{name}/logs/{process}", get(log_tail))
        .route("/api/egret/topologies/{name}/activate", post(activate))
        .route("/api/egret/topologies/{name}/deactivate", post(deactivate))
        .route("/api/egret/topologies/{name}/kill", post(kill))
        .route(
            "/api/egret/topologies/{name}/rebalance/{wait}",
            post(storm_rebalance),
        )
        .with_state(state)
}

// ---- assets ----

#[derive(rust_embed::RustEmbed)]
#[folder = "assets/"]
struct Assets;

fn content_type(file: &str) -> &'static str {
    match file.rsplit_once('.').map(|(_, e)| e) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    }
}

fn serve_asset(file: &str) -> Response {
    match Assets::get(file) {
        Some(content) => (
            [
                (
                    header::CONTENT_TYPE,
                    HeaderValue::from_static(content_type(file)),
                ),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
            ],
            content.data.into_owned(),
        )
            .into_response(),
        None => (StatusCode::NOT_FOUND, format!("no asset '{file}'")).into_response(),
    }
}

async fn index() -> Response {
    serve_asset("index.html")
}

async fn asset(Path(file): Path<String>) -> Response {
    serve_asset(&file)
}

// ---- Storm UI's shape ----

#[derive(Deserialize)]
struct WindowQuery {
    window: Option<String>,
}

fn window(q: &WindowQuery) -> Result<String, UiError> {
    let w = q.window.clone().unwrap_or_else(|| ":all-time".to_owned());
    if storm::WINDOWS.contains(&w.as_str()) {
        Ok(w)
    } else {
        Err(UiError::BadRequest(format!(
            "unknown window '{w}' (one of {})",
            storm::WINDOWS.join(", ")
        )))
    }
}

async fn storm_cluster(State(s): State<AppState>) -> ApiResult {
    let views = TopologyView::load_all(&s.source).await?;
    Ok(axum::Json(storm::cluster_summary(&views)))
}

async fn storm_topologies(State(s): State<AppState>) -> ApiResult {
    let views = TopologyView::load_all(&s.source).await?;
    Ok(axum::Json(storm::topology_summary(&views)))
}

async fn storm_topology(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<WindowQuery>,
) -> ApiResult {
    let w = window(&q)?;
    let v = TopologyView::load(&s.source, &id).await?;
    Ok(axum::Json(storm::topology(&v, &w)))
}

async fn storm_component(
    State(s): State<AppState>,
    Path((id, component)): Path<(String, String)>,
    Query(q): Query<WindowQuery>,
) -> ApiResult {
    let w = window(&q)?;
    let v = TopologyView::load(&s.source, &id).await?;
    storm::component(&v, &component, &w)
        .map(axum::Json)
        .ok_or_else(|| UiError::NotFound(format!("topology '{id}' has no component '{component}'")))
}

/// The refusal of a mutating call, unless the server has credentials and the
/// request carries them.
fn refusal(s: &AppState, headers: &HeaderMap) -> Option<Response> {
    let Some(credentials) = &s.credentials else {
        let body = json!({"error": "Forbidden", "errorMessage": auth::DISABLED_MESSAGE});
        return Some((StatusCode::FORBIDDEN, axum::Json(body)).into_response());
    };
    let presented = headers
        .get(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok());
    if credentials.accepts(presented) {
        None
    } else {
        let body = json!({
            "error": "Unauthorized",
            "errorMessage": "this call needs the server's token: 'Authorization: Bearer TOKEN'",
        });
        Some(
            (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"))],
                axum::Json(body),
            )
                .into_response(),
        )
    }
}

async fn operate(
    s: &AppState,
    headers: &HeaderMap,
    key: &str,
    operation: &str,
    request: client_request::Request,
) -> Response {
    if let Some(refused) = refusal(s, headers) {
        return refused;
    }
    let result = async {
        let found = s.source.find(key).await?;
        s.source.ask(&found, request, MASTER_TIMEOUT).await?;
        info!(topology = %found.name, operation, "Done on request of the UI's API.");
        Ok::<_, UiError>(found.topology.id)
    }
    .await;
    match result {
        Ok(id) => axum::Json(json!({
            "topologyOperation": operation,
            "topologyId": id,
            "status": "success",
        }))
        .into_response(),
        Err(e) => e.into_response(),
    }
}

/// A path's `:wait` segment: whole seconds.
fn wait_secs(wait: &str) -> Result<u32, UiError> {
    wait.parse()
        .map_err(|_| UiError::BadRequest(format!("wait time '{wait}' is not a number of seconds")))
}

fn kill_request(wait: &str) -> Result<client_request::Request, UiError> {
    let wait_secs = wait_secs(wait)?;
    Ok(client_request::Request::DetachedKill(DetachedKillRequest {
        wait_secs,
        wait_message_timeout: false,
    }))
}

async fn storm_activate(
    State(s): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    operate(
        &s,
        &headers,
        &id,
        "activate",
        client_request::Request::Activate(Empty {}),
    )
    .await
}

async fn storm_deactivate(
    State(s): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    operate(
        &s,
        &headers,
        &id,
        "deactivate",
        client_request::Request::Deactivate(Empty {}),
    )
    .await
}

async fn storm_kill(
    State(s): State<AppState>,
    Path((id, wait)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    if let Some(refused) = refusal(&s, &headers) {
        return refused;
    }
    match kill_request(&wait) {
        Ok(request) => operate(&s, &headers, &id, "kill", request).await,
        Err(e) => e.into_response(),
    }
}

/// Storm UI's rebalance body: `{"rebalanceOptions": {"numWorkers": N,
/// "executors": {"COMPONENT": N}}}`, every part optional (an empty body
/// re-packs with the same counts, as `storm rebalance NAME` does).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RebalanceBody {
    #[serde(default)]
    rebalance_options: RebalanceOptions,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RebalanceOptions {
    num_workers: Option<i64>,
    #[serde(default)]
    executors: std::collections::BTreeMap<String, i64>,
}

/// The master's request for a rebalance of `dir`'s topology: the body
/// checked against the stored topology first (unknown component, more
/// executors than tasks, a plan that does not pack: 400 naming it), as
/// `egret rebalance` checks it, so a refused call changes nothing.
fn rebalance_request(
    topology: &egret_proto::v1::Topology,
    wait: &str,
    body: &[u8],
) -> Result<RebalanceRequest, UiError> {
    let wait_secs = wait_secs(wait)?;
    let body: RebalanceBody = if body.iter().all(u8::is_ascii_whitespace) {
        RebalanceBody::default()
    } else {
        serde_json::from_slice(body).map_err(|e| {
            UiError::BadRequest(format!(
                "the body is not Storm UI's rebalance JSON ({{\"rebalanceOptions\": \
                 {{\"numWorkers\": N, \"executors\": {{\"COMPONENT\": N}}}}}}): {e}"
            ))
        })?
    };
    let options = body.rebalance_options;
    let executors: Vec<String> = options
        .executors
        .iter()
        .map(|(component, n)| format!("{component}={n}"))
        .collect();
    let changes = egret_scheduler::rebalance::Changes::parse(options.num_workers, &executors)
        .map_err(|e| UiError::BadRequest(e.to_string()))?;
    egret_scheduler::rebalance::rebalance(topology, &changes)
        .map_err(|e| UiError::BadRequest(e.to_string()))?;
    let request = RebalanceRequest {
        wait_secs,
        wait_message_timeout: false,
        workers: match changes.workers {
            Some(n) => i32::try_from(n)
                .map_err(|_| UiError::BadRequest(format!("numWorkers {n} is too large")))?,
            None => 0,
        },
        executors: changes.executors.into_iter().collect(),
    };
    Ok(request)
}

/// `POST /api/v1/topology/:id/rebalance/:wait-time` (Storm UI's) and
/// `/api/egret/topologies/:name/rebalance/:wait`: the master deactivates,
/// waits, stores the new plan and the local scheduler restarts the
/// topology on it; the answer comes once the master has stored it.
async fn storm_rebalance(
    State(s): State<AppState>,
    Path((id, wait)): Path<(String, String)>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    if let Some(refused) = refusal(&s, &headers) {
        return refused;
    }
    let result = async {
        let found = s.source.find(&id).await?;
        let request = rebalance_request(&found.topology, &wait, &body)?;
        // The master answers after the wait.
        let timeout =
            std::time::Duration::from_secs(u64::from(request.wait_secs)) + MASTER_TIMEOUT * 6;
        s.source
            .ask(&found, client_request::Request::Rebalance(request), timeout)
            .await?;
        info!(topology = %found.name, operation = "rebalance", "Done on request of the UI's API.");
        Ok::<_, UiError>(found.topology.id)
    }
    .await;
    match result {
        Ok(topology_id) => axum::Json(json!({
            "topologyOperation": "rebalance",
            "topologyId": topology_id,
            "status": "success",
        }))
        .into_response(),
        Err(e) => e.into_response(),
    }
}

// ---- Egret's own API ----

fn summary_json(v: &TopologyView) -> Value {
    json!({
        "name": v.name,
        "id": v.id(),
        "status": v.status(),
        "uptimeSeconds": v.uptime_secs(),
        "containers": v.containers(),
        "executors": v.num_executors(),
        "tasks": v.num_tasks(),
        "unreachable": v.unreachable,
    })
}

async fn topologies(State(s): State<AppState>) -> ApiResult {
    let views = TopologyView::load_all(&s.source).await?;
    let mut list = Vec::new();
    for v in &views {
        let mut entry = summary_json(v);
        let stats = v.component_stats("600");
        let bottleneck = stats.iter().find(|c| c.bottleneck).map(|c| c.id.clone());
        let errors: usize = stats.iter().map(|c| c.errors).sum();
        if let Some(m) = entry.as_object_mut() {
            m.insert("bottleneck".into(), json!(bottleneck));
            m.insert("errors".into(), json!(errors));
        }
        list.push(entry);
    }
    Ok(axum::Json(json!({ "topologies": list })))
}

fn grouping_name(g: Option<&egret_proto::v1::Grouping>) -> String {
    use egret_proto::v1::grouping::Kind;
    match g.and_then(|g| g.kind.as_ref()) {
        Some(Kind::Fields(f)) if f.fields.is_empty() => "global".into(),
        Some(Kind::Fields(f)) => format!("fields({})", f.fields.join(",")),
        Some(Kind::Shuffle(_)) => "shuffle".into(),
        Some(Kind::All(_)) => "all".into(),
        Some(Kind::None(_)) => "none".into(),
        Some(Kind::Direct(_)) => "direct".into(),
        Some(Kind::CustomSerialized(_)) => "custom".into(),
        Some(Kind::LocalOrShuffle(_)) => "local-or-shuffle".into(),
        None => "-".into(),
    }
}

fn logical_json(v: &TopologyView) -> Value {
    let components: Vec<Value> = v
        .topology
        .components
        .iter()
        .map(|c| {
            json!({
                "id": c.id,
                "kind": if c.kind == egret_proto::v1::ComponentKind::Spout as i32 { "spout" } else { "bolt" },
                "parallelism": c.parallelism,
                "tasks": c.num_tasks,
                "streams": c.streams.iter().map(|s| json!({"id": s.id, "fields": s.fields, "direct": s.direct})).collect::<Vec<_>>(),
                "inputs": c.inputs.iter().map(|i| json!({
                    "component": i.component, "stream": i.stream,
                    "grouping": grouping_name(i.grouping.as_ref()),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({ "components": components })
}

fn packing_json(v: &TopologyView) -> Value {
    let Some(p) = &v.packing else {
        return json!({ "containers": [] });
    };
    json!({
        "containers": p.containers.iter().map(|c| json!({
            "index": c.index,
            "instances": c.instances.iter().map(|i| json!({
                "id": i.instance_id, "component": i.component,
                "executorIndex": i.executor_index, "tasks": i.task_ids,
                "heapMb": i.heap_mb, "cpuPercent": i.cpu_percent,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

fn physical_json(v: &TopologyView) -> Value {
    let Some(p) = &v.physical else {
        return json!({ "streamManagers": [], "state": null });
    };
    json!({
        "state": egret_proto::v1::TopologyState::try_from(p.state).map(|s| s.as_str_name()).unwrap_or("UNKNOWN"),
        "streamManagers": p.stream_managers.iter().map(|s| json!({
            "container": s.container_index, "host": s.host, "dataPort": s.data_port,
        })).collect::<Vec<_>>(),
        "debug": p.debug.iter().map(|d| json!({"component": d.component, "enable": d.enable, "samplingPct": d.sampling_pct})).collect::<Vec<_>>(),
        "logLevels": p.log_levels.iter().map(|l| json!({"logger": l.logger, "level": l.level, "timeoutSecs": l.timeout_secs, "resetEpochMs": l.reset_epoch_ms})).collect::<Vec<_>>(),
    })
}

fn errors_json(v: &TopologyView) -> Value {
    let errors = v.info.as_ref().map_or(&[][..], |i| i.errors.as_slice());
    json!(
        errors
            .iter()
            .map(|e| json!({
                "component": e.component, "task": e.task_id, "error": e.error,
                "time": e.time_secs, "host": e.host, "port": e.port,
            }))
            .collect::<Vec<_>>()
    )
}

async fn overview(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Query(q): Query<WindowQuery>,
) -> ApiResult {
    let w = q.window.clone().unwrap_or_else(|| "600".to_owned());
    let w = window(&WindowQuery { window: Some(w) })?;
    let v = TopologyView::load(&s.source, &name).await?;
    let all_time = v.component_stats(":all-time");
    let components: Vec<Value> = v
        .component_stats(&w)
        .iter()
        .map(|c| {
            let total = all_time
                .iter()
                .find(|a| a.id == c.id)
                .map(|a| a.sums.clone())
                .unwrap_or_default();
            json!({
                "id": c.id,
                "kind": if c.spout { "spout" } else { "bolt" },
                "executors": c.executors,
                "tasks": c.tasks,
                "emitted": total.emitted,
                "transferred": total.transferred,
                "executed": total.executed,
                "acked": total.acked,
                "failed": total.failed,
                "executeLatencyMs": c.sums.execute_latency(),
                "processLatencyMs": c.sums.process_latency(),
                "completeLatencyMs": c.sums.complete_latency(),
                // The ledgers' quantiles since start (their busiest task), spouts only.
                "completeLatencyP50Ms": s.series.latest(&v.name, &format!("complete-latency-p50-ms/{}", c.id)),
                "completeLatencyP99Ms": s.series.latest(&v.name, &format!("complete-latency-p99-ms/{}", c.id)),
                "capacity": c.capacity,
                "capacityNow": s.series.latest(&v.name, &format!("capacity/{}", c.id)),
                "emitRate": s.series.latest(&v.name, &format!("emitted/{}", c.id)),
                "executeRate": s.series.latest(&v.name, &format!("executed/{}", c.id)),
                "backpressureRate": s.series.latest(&v.name, &format!("backpressure/{}", c.id)),
                "bottleneck": c.bottleneck,
                "errors": c.errors,
            })
        })
        .collect();
    let mut edges = Vec::new();
    for c in &v.topology.components {
        for i in &c.inputs {
            edges.push(json!({
                "from": i.component, "to": c.id, "stream": i.stream,
                "grouping": grouping_name(i.grouping.as_ref()),
                "rate": s.series.latest(&v.name, &format!("edge/{}/{}/{}", i.component, i.stream, c.id)),
            }));
        }
    }
    Ok(axum::Json(json!({
        "summary": summary_json(&v),
        "window": w,
        "components": components,
        "edges": edges,
        "logical": logical_json(&v),
        "packing": packing_json(&v),
        "physical": physical_json(&v),
        "errors": errors_json(&v),
        "resolutionSecs": series::RESOLUTION.as_secs(),
    })))
}

async fn logical(State(s): State<AppState>, Path(name): Path<String>) -> ApiResult {
    let v = TopologyView::load(&s.source, &name).await?;
    Ok(axum::Json(logical_json(&v)))
}

async fn packing(State(s): State<AppState>, Path(name): Path<String>) -> ApiResult {
    let v = TopologyView::load(&s.source, &name).await?;
    Ok(axum::Json(packing_json(&v)))
}

async fn physical(State(s): State<AppState>, Path(name): Path<String>) -> ApiResult {
    let v = TopologyView::load(&s.source, &name).await?;
    Ok(axum::Json(physical_json(&v)))
}

async fn errors(State(s): State<AppState>, Path(name): Path<String>) -> ApiResult {
    let v = TopologyView::load(&s.source, &name).await?;
    Ok(axum::Json(json!({ "errors": errors_json(&v) })))
}

async fn metrics(State(s): State<AppState>, Path(name): Path<String>) -> ApiResult {
    let found = s.source.find(&name).await?;
    let processes = view::process_metrics(&s.source, &found).await?;
    Ok(axum::Json(json!({
        "processes": processes.iter().map(|p| json!({
            "process": p.process, "updatedMs": p.updated_ms,
            "metrics": p.metrics.iter().map(|m| json!({"name": m.name, "component": m.component, "task": m.task, "value": m.value})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })))
}

#[derive(Deserialize)]
struct SeriesQuery {
    prefix: Option<String>,
}

async fn series_of(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Query(q): Query<SeriesQuery>,
) -> ApiResult {
    let name = s.source.find(&name).await?.name;
    let prefix = q.prefix.unwrap_or_default();
    Ok(axum::Json(json!({
        "resolutionSecs": series::RESOLUTION.as_secs(),
        "points": series::POINTS,
        "droppedSeries": s.series.dropped_series(&name),
        "series": s.series.get(&name, &prefix),
    })))
}

async fn backpressure(State(s): State<AppState>, Path(name): Path<String>) -> ApiResult {
    let name = s.source.find(&name).await?.name;
    let by_component: serde_json::Map<String, Value> = s
        .series
        .get(&name, "backpressure/")
        .into_iter()
        .map(|(k, v)| (k.trim_start_matches("backpressure/").to_owned(), json!(v)))
        .collect();
    Ok(axum::Json(json!({
        "resolutionSecs": series::RESOLUTION.as_secs(),
        "components": by_component,
        "throttledMsPerSec": s.series.get(&name, "backpressure-ms").remove("backpressure-ms").unwrap_or_default(),
    })))
}

async fn log_list(State(s): State<AppState>, Path(name): Path<String>) -> ApiResult {
    let found = s.source.find(&name).await?;
    let entries = s.source.logs(&found).await?;
    Ok(axum::Json(json!({
        "processes": entries.iter().map(|e| &e.process).collect::<Vec<_>>(),
        "containers": entries.iter().map(|e| json!({"process": e.process, "container": e.container})).collect::<Vec<_>>(),
    })))
}

#[derive(Deserialize)]
struct TailQuery {
    lines: Option<usize>,
}

async fn log_tail(
    State(s): State<AppState>,
    Path((name, process)): Path<(String, String)>,
    Query(q): Query<TailQuery>,
) -> ApiResult {
    let found = s.source.find(&name).await?;
    let lines = q.lines.unwrap_or(200);
    let tail = s.source.log_tail(&found, &process, lines).await?;
    Ok(axum::Json(json!({ "process": process, "lines": tail })))
}

async fn activate(
    State(s): State<AppState>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Response {
    operate(
        &s,
        &headers,
        &name,
        "activate",
        client_request::Request::Activate(Empty {}),
    )
    .await
}

async fn deactivate(
    State(s): State<AppState>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Response {
    operate(
        &s,
        &headers,
        &name,
        "deactivate",
        client_request::Request::Deactivate(Empty {}),
    )
    .await
}

#[derive(Deserialize)]
struct KillQuery {
    wait: Option<String>,
}

async fn kill(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Query(q): Query<KillQuery>,
    headers: HeaderMap,
) -> Response {
    if let Some(refused) = refusal(&s, &headers) {
        return refused;
    }
    match kill_request(q.wait.as_deref().unwrap_or("30")) {
        Ok(request) => operate(&s, &headers, &name, "kill", request).await,
        Err(e) => e.into_response(),
    }
}
