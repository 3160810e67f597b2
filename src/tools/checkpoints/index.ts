/** Checkpoints: snapshots of project directories in shadow git repositories, with restore and pruning. */
export { GitError } from "./git.js";
export { type PruneAllOptions, type PruneAllResult, pruneAllCheckpoints } from "./prune.js";
export {
  type ChangedFile,
  type Checkpoint,
  type CheckpointRef,
  CheckpointStore,
  type CheckpointStoreOptions,
  openCheckpointStore,
  type RestoreOptions,
  type RestoreResult,
  type SnapshotInfo,
  shadowDirFor,
} from "./store.js";
export { CheckpointTracker, type CheckpointTrackerOptions, projectRoot, type TurnInfo } from "./tracker.js";
