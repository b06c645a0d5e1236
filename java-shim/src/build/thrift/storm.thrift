// Thrift IDL facts of Storm's org.apache.storm.generated types, extracted by
// ExtractIdl.java from storm-client's Thrift metadata. Regenerate the Java with regenerate.sh.
namespace java org.apache.storm.generated

enum AccessControlType {
  OTHER = 1,
  USER = 2
}

enum ComponentType {
  BOLT = 1,
  SPOUT = 2
}

enum DRPCExceptionType {
  INTERNAL_ERROR = 0,
  SERVER_SHUTDOWN = 1,
  SERVER_TIMEOUT = 2,
  FAILED_REQUEST = 3
}

enum HBServerMessageType {
  CREATE_PATH = 0,
  CREATE_PATH_RESPONSE = 1,
  EXISTS = 2,
  EXISTS_RESPONSE = 3,
  SEND_PULSE = 4,
  SEND_PULSE_RESPONSE = 5,
  GET_ALL_PULSE_FOR_PATH = 6,
  GET_ALL_PULSE_FOR_PATH_RESPONSE = 7,
  GET_ALL_NODES_FOR_PATH = 8,
  GET_ALL_NODES_FOR_PATH_RESPONSE = 9,
  GET_PULSE = 10,
  GET_PULSE_RESPONSE = 11,
  DELETE_PATH = 12,
  DELETE_PATH_RESPONSE = 13,
  DELETE_PULSE_ID = 14,
  DELETE_PULSE_ID_RESPONSE = 15,
  CONTROL_MESSAGE = 16,
  SASL_MESSAGE_TOKEN = 17,
  NOT_AUTHORIZED = 18
}

enum LogLevelAction {
  UNCHANGED = 1,
  UPDATE = 2,
  REMOVE = 3
}

enum NumErrorsChoice {
  ALL = 0,
  NONE = 1,
  ONE = 2
}

enum ProfileAction {
  JPROFILE_STOP = 0,
  JPROFILE_START = 1,
  JPROFILE_DUMP = 2,
  JMAP_DUMP = 3,
  JSTACK_DUMP = 4,
  JVM_RESTART = 5
}

enum TopologyInitialStatus {
  ACTIVE = 1,
  INACTIVE = 2
}

enum TopologyStatus {
  ACTIVE = 1,
  INACTIVE = 2,
  REBALANCING = 3,
  KILLED = 4
}

enum WorkerTokenServiceType {
  NIMBUS = 0,
  DRPC = 1,
  SUPERVISOR = 2
}

struct AccessControl {
  1: required AccessControlType type;
  2: optional string name;
  3: required i32 access;
}

exception AlreadyAliveException {
  1: required string msg;
}

struct NodeInfo {
  1: required string node;
  2: required set<i64> port;
}

struct WorkerResources {
  1: optional double mem_on_heap;
  2: optional double mem_off_heap;
  3: optional double cpu;
  4: optional double shared_mem_on_heap;
  5: optional double shared_mem_off_heap;
  6: optional map<string,double> resources;
  7: optional map<string,double> shared_resources;
}

struct Assignment {
  1: required string master_code_dir;
  2: optional map<string,string> node_host = {};
  3: optional map<list<i64>,NodeInfo> executor_node_port = {};
  4: optional map<list<i64>,i64> executor_start_time_secs = {};
  5: optional map<NodeInfo,WorkerResources> worker_resources = {};
  6: optional map<string,double> total_shared_off_heap = {};
  7: optional string owner;
}

exception AuthorizationException {
  1: required string msg;
}

struct BeginDownloadResult {
  1: required i64 version;
  2: required string session;
  3: optional i64 data_size;
}

struct ShellComponent {
  1: string execution_command;
  2: string script;
}

union JavaObjectArg {
  1: optional i32 int_arg;
  2: optional i64 long_arg;
  3: optional string string_arg;
  4: optional bool bool_arg;
  5: optional binary binary_arg;
  6: optional double double_arg;
}

struct JavaObject {
  1: required string full_class_name;
  2: required list<JavaObjectArg> args_list;
}

union ComponentObject {
  1: optional binary serialized_java;
  2: optional ShellComponent shell;
  3: optional JavaObject java_object;
}

struct GlobalStreamId {
  1: required string componentId;
  2: required string streamId;
}

struct NullStruct {
}

union Grouping {
  1: optional list<string> fields;
  2: optional NullStruct shuffle;
  3: optional NullStruct all;
  4: optional NullStruct none;
  5: optional NullStruct direct;
  6: optional JavaObject custom_object;
  7: optional binary custom_serialized;
  8: optional NullStruct local_or_shuffle;
}

struct StreamInfo {
  1: required list<string> output_fields;
  2: required bool direct;
}

struct ComponentCommon {
  1: required map<GlobalStreamId,Grouping> inputs;
  2: required map<string,StreamInfo> streams;
  3: optional i32 parallelism_hint;
  4: optional string json_conf;
}

struct Bolt {
  1: required ComponentObject bolt_object;
  2: required ComponentCommon common;
}

struct BoltAggregateStats {
  1: optional double execute_latency_ms;
  2: optional double process_latency_ms;
  3: optional i64 executed;
  4: optional double capacity;
}

struct BoltStats {
  1: required map<string,map<GlobalStreamId,i64>> acked;
  2: required map<string,map<GlobalStreamId,i64>> failed;
  3: required map<string,map<GlobalStreamId,double>> process_ms_avg;
  4: required map<string,map<GlobalStreamId,i64>> executed;
  5: required map<string,map<GlobalStreamId,double>> execute_ms_avg;
}

struct SupervisorSummary {
  1: required string host;
  2: required i32 uptime_secs;
  3: required i32 num_workers;
  4: required i32 num_used_workers;
  5: required string supervisor_id;
  6: optional string version = "VERSION_NOT_PROVIDED";
  7: optional map<string,double> total_resources;
  8: optional double used_mem;
  9: optional double used_cpu;
  10: optional double fragmented_mem;
  11: optional double fragmented_cpu;
  12: optional bool blacklisted;
  13: optional map<string,double> used_generic_resources;
}

struct TopologySummary {
  1: required string id;
  2: required string name;
  3: required i32 num_tasks;
  4: required i32 num_executors;
  5: required i32 num_workers;
  6: required i32 uptime_secs;
  7: required string status;
  8: optional string storm_version;
  9: optional string topology_version;
  513: optional string sched_status;
  514: optional string owner;
  515: optional i32 replication_count;
  521: optional double requested_memonheap;
  522: optional double requested_memoffheap;
  523: optional double requested_cpu;
  524: optional double assigned_memonheap;
  525: optional double assigned_memoffheap;
  526: optional double assigned_cpu;
  527: optional map<string,double> requested_generic_resources;
  528: optional map<string,double> assigned_generic_resources;
}

struct NimbusSummary {
  1: required string host;
  2: required i32 port;
  3: required i32 uptime_secs;
  4: required bool isLeader;
  5: required string version;
  6: optional i32 tlsPort;
}

struct ClusterSummary {
  1: required list<SupervisorSummary> supervisors;
  3: required list<TopologySummary> topologies;
  4: required list<NimbusSummary> nimbuses;
}

struct ExecutorInfo {
  1: required i32 task_start;
  2: required i32 task_end;
}

struct SpoutStats {
  1: required map<string,map<string,i64>> acked;
  2: required map<string,map<string,i64>> failed;
  3: required map<string,map<string,double>> complete_ms_avg;
}

union ExecutorSpecificStats {
  1: optional BoltStats bolt;
  2: optional SpoutStats spout;
}

struct ExecutorStats {
  1: required map<string,map<string,i64>> emitted;
  2: required map<string,map<string,i64>> transferred;
  3: required ExecutorSpecificStats specific;
  4: required double rate;
}

struct ClusterWorkerHeartbeat {
  1: required string storm_id;
  2: required map<ExecutorInfo,ExecutorStats> executor_stats;
  3: required i32 time_secs;
  4: required i32 uptime_secs;
}

struct CommonAggregateStats {
  1: optional i32 num_executors;
  2: optional i32 num_tasks;
  3: optional i64 emitted;
  4: optional i64 transferred;
  5: optional i64 acked;
  6: optional i64 failed;
  7: optional map<string,double> resources_map;
}

struct SpoutAggregateStats {
  1: optional double complete_latency_ms;
}

union SpecificAggregateStats {
  1: optional BoltAggregateStats bolt;
  2: optional SpoutAggregateStats spout;
}

struct ErrorInfo {
  1: required string error;
  2: required i32 error_time_secs;
  3: optional string host;
  4: optional i32 port;
}

struct ComponentAggregateStats {
  1: optional ComponentType type;
  2: optional CommonAggregateStats common_stats;
  3: optional SpecificAggregateStats specific_stats;
  4: optional ErrorInfo last_error;
}

struct ExecutorSummary {
  1: required ExecutorInfo executor_info;
  2: required string component_id;
  3: required string host;
  4: required i32 port;
  5: required i32 uptime_secs;
  7: optional ExecutorStats stats;
}

struct ExecutorAggregateStats {
  1: optional ExecutorSummary exec_summary;
  2: optional ComponentAggregateStats stats;
}

struct DebugOptions {
  1: optional bool enable;
  2: optional double samplingpct;
}

struct ComponentPageInfo {
  1: required string component_id;
  2: required ComponentType component_type;
  3: optional string topology_id;
  4: optional string topology_name;
  5: optional i32 num_executors;
  6: optional i32 num_tasks;
  7: optional map<string,ComponentAggregateStats> window_to_stats;
  8: optional map<GlobalStreamId,ComponentAggregateStats> gsid_to_input_stats;
  9: optional map<string,ComponentAggregateStats> sid_to_output_stats;
  10: optional list<ExecutorAggregateStats> exec_stats;
  11: optional list<ErrorInfo> errors;
  12: optional string eventlog_host;
  13: optional i32 eventlog_port;
  14: optional DebugOptions debug_options;
  15: optional string topology_status;
  16: optional map<string,double> resources_map;
}

struct Credentials {
  1: required map<string,string> creds;
  2: optional string topoOwner;
}

exception DRPCExecutionException {
  1: required string msg;
  2: optional DRPCExceptionType type;
}

struct DRPCRequest {
  1: required string func_args;
  2: required string request_id;
}

struct GetInfoOptions {
  1: optional NumErrorsChoice num_err_choice;
}

exception HBAuthorizationException {
  1: required string msg;
}

exception HBExecutionException {
  1: required string msg;
}

struct HBPulse {
  1: required string id;
  2: binary details;
}

struct HBRecords {
  1: list<HBPulse> pulses;
}

struct HBNodes {
  1: list<string> pulseIds;
}

union HBMessageData {
  1: optional string path;
  2: optional HBPulse pulse;
  3: optional bool boolval;
  4: optional HBRecords records;
  5: optional HBNodes nodes;
  7: optional binary message_blob;
}

struct HBMessage {
  1: HBServerMessageType type;
  2: HBMessageData data;
  3: optional i32 message_id;
}

exception IllegalStateException {
  1: required string msg;
}

exception InvalidTopologyException {
  1: required string msg;
}

exception KeyAlreadyExistsException {
  1: required string msg;
}

exception KeyNotFoundException {
  1: required string msg;
}

struct KillOptions {
  1: optional i32 wait_secs;
}

struct LSApprovedWorkers {
  1: required map<string,i32> approved_workers;
}

struct LocalAssignment {
  1: required string topology_id;
  2: required list<ExecutorInfo> executors;
  3: optional WorkerResources resources;
  4: optional double total_node_shared;
  5: optional string owner;
}

struct LSSupervisorAssignments {
  1: required map<i32,LocalAssignment> assignments;
}

struct LSSupervisorId {
  1: required string supervisor_id;
}

struct LSTopoHistory {
  1: required string topology_id;
  2: required i64 time_stamp;
  3: required list<string> users;
  4: required list<string> groups;
}

struct LSTopoHistoryList {
  1: required list<LSTopoHistory> topo_history;
}

struct LSWorkerHeartbeat {
  1: required i32 time_secs;
  2: required string topology_id;
  3: required list<ExecutorInfo> executors;
  4: required i32 port;
}

struct ListBlobsResult {
  1: required list<string> keys;
  2: required string session;
}

struct ThriftSerializedObject {
  1: required string name;
  2: required binary bits;
}

struct LocalStateData {
  1: required map<string,ThriftSerializedObject> serialized_parts;
}

struct LogLevel {
  1: required LogLevelAction action;
  2: optional string target_log_level;
  3: optional i32 reset_log_level_timeout_secs;
  4: optional i64 reset_log_level_timeout_epoch;
  5: optional string reset_log_level;
}

struct LogConfig {
  2: optional map<string,LogLevel> named_logger_level;
}

exception NotAliveException {
  1: required string msg;
}

struct OwnerResourceSummary {
  1: required string owner;
  2: optional i32 total_topologies;
  3: optional i32 total_executors;
  4: optional i32 total_workers;
  5: optional double memory_usage;
  6: optional double cpu_usage;
  7: optional double memory_guarantee;
  8: optional double cpu_guarantee;
  9: optional double memory_guarantee_remaining;
  10: optional double cpu_guarantee_remaining;
  11: optional i32 isolated_node_guarantee;
  12: optional i32 total_tasks;
  13: optional double requested_on_heap_memory;
  14: optional double requested_off_heap_memory;
  15: optional double requested_total_memory;
  16: optional double requested_cpu;
  17: optional double assigned_on_heap_memory;
  18: optional double assigned_off_heap_memory;
}

struct PrivateWorkerKey {
  1: required binary key;
  2: required string userName;
  3: required i64 expirationTimeMillis;
}

struct ProfileRequest {
  1: required NodeInfo nodeInfo;
  2: required ProfileAction action;
  3: optional i64 time_stamp;
}

struct SettableBlobMeta {
  1: required list<AccessControl> acl;
  2: optional i32 replication_factor;
}

struct ReadableBlobMeta {
  1: required SettableBlobMeta settable;
  2: required i64 version;
}

struct RebalanceOptions {
  1: optional i32 wait_secs;
  2: optional i32 num_workers;
  3: optional map<string,i32> num_executors;
  4: optional map<string,map<string,double>> topology_resources_overrides;
  5: optional string topology_conf_overrides;
  6: optional string principal;
}

struct SharedMemory {
  1: required string name;
  2: optional double on_heap;
  3: optional double off_heap_worker;
  4: optional double off_heap_node;
}

struct SpoutSpec {
  1: required ComponentObject spout_object;
  2: required ComponentCommon common;
}

struct StateSpoutSpec {
  1: required ComponentObject state_spout_object;
  2: required ComponentCommon common;
}

union TopologyActionOptions {
  1: optional KillOptions kill_options;
  2: optional RebalanceOptions rebalance_options;
}

struct StormBase {
  1: required string name;
  2: required TopologyStatus status;
  3: required i32 num_workers;
  4: optional map<string,i32> component_executors;
  5: optional i32 launch_time_secs;
  6: optional string owner;
  7: optional TopologyActionOptions topology_action_options;
  8: optional TopologyStatus prev_status;
  9: optional map<string,DebugOptions> component_debug;
  10: optional string principal;
  11: optional string topology_version;
}

struct StormTopology {
  1: required map<string,SpoutSpec> spouts;
  2: required map<string,Bolt> bolts;
  3: required map<string,StateSpoutSpec> state_spouts;
  4: optional list<binary> worker_hooks;
  5: optional list<string> dependency_jars;
  6: optional list<string> dependency_artifacts;
  7: optional string storm_version;
  8: optional string jdk_version;
  9: optional map<string,set<string>> component_to_shared_memory;
  10: optional map<string,SharedMemory> shared_memory;
}

struct SubmitOptions {
  1: required TopologyInitialStatus initial_status;
  2: optional Credentials creds;
}

struct SupervisorAssignments {
  1: optional map<string,Assignment> storm_assignment = {};
}

struct SupervisorInfo {
  1: required i64 time_secs;
  2: required string hostname;
  3: optional string assignment_id;
  4: optional list<i64> used_ports;
  5: optional list<i64> meta;
  6: optional map<string,string> scheduler_meta;
  7: optional i64 uptime_secs;
  8: optional string version;
  9: optional map<string,double> resources_map;
  10: optional i32 server_port;
}

struct WorkerSummary {
  1: optional string supervisor_id;
  2: optional string host;
  3: optional i32 port;
  4: optional string topology_id;
  5: optional string topology_name;
  6: optional i32 num_executors;
  7: optional map<string,i64> component_to_num_tasks;
  8: optional i32 time_secs;
  9: optional i32 uptime_secs;
  521: optional double requested_memonheap;
  522: optional double requested_memoffheap;
  523: optional double requested_cpu;
  524: optional double assigned_memonheap;
  525: optional double assigned_memoffheap;
  526: optional double assigned_cpu;
  527: optional string owner;
}

struct SupervisorPageInfo {
  1: optional list<SupervisorSummary> supervisor_summaries;
  2: optional list<WorkerSummary> worker_summaries;
}

struct SupervisorWorkerHeartbeat {
  1: required string storm_id;
  2: required list<ExecutorInfo> executors;
  3: required i32 time_secs;
}

struct SupervisorWorkerHeartbeats {
  1: required string supervisor_id;
  2: required list<SupervisorWorkerHeartbeat> worker_heartbeats;
}

struct TopologyHistoryInfo {
  1: list<string> topo_ids;
}

struct TopologyInfo {
  1: required string id;
  2: required string name;
  3: required i32 uptime_secs;
  4: required list<ExecutorSummary> executors;
  5: required string status;
  6: required map<string,list<ErrorInfo>> errors;
  7: optional map<string,DebugOptions> component_debug;
  8: optional string storm_version;
  513: optional string sched_status;
  514: optional string owner;
  515: optional i32 replication_count;
  521: optional double requested_memonheap;
  522: optional double requested_memoffheap;
  523: optional double requested_cpu;
  524: optional double assigned_memonheap;
  525: optional double assigned_memoffheap;
  526: optional double assigned_cpu;
}

struct TopologyStats {
  1: optional map<string,i64> window_to_emitted;
  2: optional map<string,i64> window_to_transferred;
  3: optional map<string,double> window_to_complete_latencies_ms;
  4: optional map<string,i64> window_to_acked;
  5: optional map<string,i64> window_to_failed;
}

struct TopologyPageInfo {
  1: required string id;
  2: optional string name;
  3: optional i32 uptime_secs;
  4: optional string status;
  5: optional i32 num_tasks;
  6: optional i32 num_workers;
  7: optional i32 num_executors;
  8: optional string topology_conf;
  9: optional map<string,ComponentAggregateStats> id_to_spout_agg_stats;
  10: optional map<string,ComponentAggregateStats> id_to_bolt_agg_stats;
  11: optional string sched_status;
  12: optional TopologyStats topology_stats;
  13: optional string owner;
  14: optional DebugOptions debug_options;
  15: optional i32 replication_count;
  16: optional list<WorkerSummary> workers;
  17: optional string storm_version;
  18: optional string topology_version;
  521: optional double requested_memonheap;
  522: optional double requested_memoffheap;
  523: optional double requested_cpu;
  524: optional double assigned_memonheap;
  525: optional double assigned_memoffheap;
  526: optional double assigned_cpu;
  527: optional double requested_regular_on_heap_memory;
  528: optional double requested_shared_on_heap_memory;
  529: optional double requested_regular_off_heap_memory;
  530: optional double requested_shared_off_heap_memory;
  531: optional double assigned_regular_on_heap_memory;
  532: optional double assigned_shared_on_heap_memory;
  533: optional double assigned_regular_off_heap_memory;
  534: optional double assigned_shared_off_heap_memory;
  535: optional map<string,double> requested_generic_resources;
  536: optional map<string,double> assigned_generic_resources;
}

struct WorkerMetricPoint {
  1: required string metricName;
  2: required i64 timestamp;
  3: required double metricValue;
  4: required string componentId;
  5: required string executorId;
  6: required string streamId;
}

struct WorkerMetricList {
  1: list<WorkerMetricPoint> metrics;
}

struct WorkerMetrics {
  1: required string topologyId;
  2: required i32 port;
  3: required string hostname;
  4: required WorkerMetricList metricList;
}

struct WorkerToken {
  1: required WorkerTokenServiceType serviceType;
  2: required binary info;
  3: required binary signature;
}

struct WorkerTokenInfo {
  1: required string userName;
  2: required string topologyId;
  3: required i64 secretVersion;
  4: required i64 expirationTimeMillis;
}

service DistributedRPC {
  string execute(1: string functionName, 2: string funcArgs) throws (1: DRPCExecutionException e, 2: AuthorizationException aze);
}

service DistributedRPCInvocations {
  void result(1: string id, 2: string result) throws (1: AuthorizationException aze);
  void failRequestV2(1: string id, 2: DRPCExecutionException e) throws (1: AuthorizationException aze);
  void failRequest(1: string id) throws (1: AuthorizationException aze);
  DRPCRequest fetchRequest(1: string functionName) throws (1: AuthorizationException aze);
}

service Nimbus {
  void debug(1: string name, 2: string component, 3: bool enable, 4: double samplingPercentage) throws (1: NotAliveException e, 2: AuthorizationException aze);
  bool isRemoteBlobExists(1: string blobKey) throws (1: AuthorizationException aze);
  void processWorkerMetrics(1: WorkerMetrics metrics);
  void sendSupervisorWorkerHeartbeat(1: SupervisorWorkerHeartbeat heatbeat) throws (1: AuthorizationException aze, 2: NotAliveException e);
  void sendSupervisorWorkerHeartbeats(1: SupervisorWorkerHeartbeats heartbeats) throws (1: AuthorizationException aze);
  SupervisorAssignments getSupervisorAssignments(1: string node) throws (1: AuthorizationException aze);
  list<OwnerResourceSummary> getOwnerResourceSummaries(1: string owner) throws (1: AuthorizationException aze);
  TopologyHistoryInfo getTopologyHistory(1: string user) throws (1: AuthorizationException aze);
  StormTopology getUserTopology(1: string id) throws (1: NotAliveException e, 2: AuthorizationException aze);
  StormTopology getTopology(1: string id) throws (1: NotAliveException e, 2: AuthorizationException aze);
  string getTopologyConf(1: string id) throws (1: NotAliveException e, 2: AuthorizationException aze);
  ComponentPageInfo getComponentPageInfo(1: string topology_id, 2: string component_id, 3: string window, 4: bool is_include_sys) throws (1: NotAliveException e, 2: AuthorizationException aze);
  SupervisorPageInfo getSupervisorPageInfo(1: string id, 2: string host, 3: bool is_include_sys) throws (1: NotAliveException e, 2: AuthorizationException aze);
  TopologyPageInfo getTopologyPageInfo(1: string id, 2: string window, 3: bool is_include_sys) throws (1: NotAliveException e, 2: AuthorizationException aze);
  TopologyInfo getTopologyInfoWithOpts(1: string id, 2: GetInfoOptions options) throws (1: NotAliveException e, 2: AuthorizationException aze);
  TopologyInfo getTopologyInfoByNameWithOpts(1: string name, 2: GetInfoOptions options) throws (1: NotAliveException e, 2: AuthorizationException aze);
  TopologyInfo getTopologyInfo(1: string id) throws (1: NotAliveException e, 2: AuthorizationException aze);
  TopologyInfo getTopologyInfoByName(1: string name) throws (1: NotAliveException e, 2: AuthorizationException aze);
  bool isTopologyNameAllowed(1: string name) throws (1: AuthorizationException aze);
  NimbusSummary getLeader() throws (1: AuthorizationException aze);
  TopologySummary getTopologySummary(1: string id) throws (1: NotAliveException e, 2: AuthorizationException aze);
  TopologySummary getTopologySummaryByName(1: string name) throws (1: NotAliveException e, 2: AuthorizationException aze);
  list<TopologySummary> getTopologySummaries() throws (1: AuthorizationException aze);
  ClusterSummary getClusterInfo() throws (1: AuthorizationException aze);
  string getNimbusConf() throws (1: AuthorizationException aze);
  binary downloadChunk(1: string id) throws (1: AuthorizationException aze);
  void finishFileUpload(1: string location) throws (1: AuthorizationException aze);
  void uploadChunk(1: string location, 2: binary chunk) throws (1: AuthorizationException aze);
  string beginFileUpload() throws (1: AuthorizationException aze);
  void createStateInZookeeper(1: string key);
  i32 updateBlobReplication(1: string key, 2: i32 replication) throws (1: AuthorizationException aze, 2: KeyNotFoundException knf);
  i32 getBlobReplication(1: string key) throws (1: AuthorizationException aze, 2: KeyNotFoundException knf);
  ListBlobsResult listBlobs(1: string session);
  void deleteBlob(1: string key) throws (1: AuthorizationException aze, 2: KeyNotFoundException knf, 3: IllegalStateException ise);
  binary downloadBlobChunk(1: string session) throws (1: AuthorizationException aze);
  BeginDownloadResult beginBlobDownload(1: string key) throws (1: AuthorizationException aze, 2: KeyNotFoundException knf);
  void setBlobMeta(1: string key, 2: SettableBlobMeta meta) throws (1: AuthorizationException aze, 2: KeyNotFoundException knf);
  ReadableBlobMeta getBlobMeta(1: string key) throws (1: AuthorizationException aze, 2: KeyNotFoundException knf);
  void cancelBlobUpload(1: string session) throws (1: AuthorizationException aze);
  void finishBlobUpload(1: string session) throws (1: AuthorizationException aze);
  void uploadBlobChunk(1: string session, 2: binary chunk) throws (1: AuthorizationException aze);
  string beginUpdateBlob(1: string key) throws (1: AuthorizationException aze, 2: KeyNotFoundException knf);
  string beginCreateBlob(1: string key, 2: SettableBlobMeta meta) throws (1: AuthorizationException aze, 2: KeyAlreadyExistsException kae);
  void uploadNewCredentials(1: string name, 2: Credentials creds) throws (1: NotAliveException e, 2: InvalidTopologyException ite, 3: AuthorizationException aze);
  list<ProfileRequest> getComponentPendingProfileActions(1: string id, 2: string component_id, 3: ProfileAction action);
  void setWorkerProfiler(1: string id, 2: ProfileRequest profileRequest);
  LogConfig getLogConfig(1: string name);
  void setLogConfig(1: string name, 2: LogConfig config);
  void rebalance(1: string name, 2: RebalanceOptions options) throws (1: NotAliveException e, 2: InvalidTopologyException ite, 3: AuthorizationException aze);
  void deactivate(1: string name) throws (1: NotAliveException e, 2: AuthorizationException aze);
  void activate(1: string name) throws (1: NotAliveException e, 2: AuthorizationException aze);
  void killTopologyWithOpts(1: string name, 2: KillOptions options) throws (1: NotAliveException e, 2: AuthorizationException aze);
  void killTopology(1: string name) throws (1: NotAliveException e, 2: AuthorizationException aze);
  void submitTopologyWithOpts(1: string name, 2: string uploadedJarLocation, 3: string jsonConf, 4: StormTopology topology, 5: SubmitOptions options) throws (1: AlreadyAliveException e, 2: InvalidTopologyException ite, 3: AuthorizationException aze);
  void submitTopology(1: string name, 2: string uploadedJarLocation, 3: string jsonConf, 4: StormTopology topology) throws (1: AlreadyAliveException e, 2: InvalidTopologyException ite, 3: AuthorizationException aze);
}

service Supervisor {
  void sendSupervisorWorkerHeartbeat(1: SupervisorWorkerHeartbeat heartbeat) throws (1: AuthorizationException aze);
  Assignment getLocalAssignmentForStorm(1: string id) throws (1: NotAliveException e, 2: AuthorizationException aze);
  void sendSupervisorAssignments(1: SupervisorAssignments assignments) throws (1: AuthorizationException aze);
}

