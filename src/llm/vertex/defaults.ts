/**
 * `vertex.*` of config.yaml as the Vertex transport reads it, set by the runtime when it opens.
 * Kept apart from the transport so a run that never uses Vertex does not load it.
 */
export interface VertexDefaults {
  projectId?: string;
  region?: string;
}

let current: VertexDefaults = {};

export function setVertexDefaults(value: VertexDefaults): void {
  current = value;
}

export function vertexDefaults(): VertexDefaults {
  return current;
}
