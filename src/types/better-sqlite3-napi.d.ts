// The Node-API release of better-sqlite3, installed under an npm alias; its API is release 12's.
declare module "better-sqlite3-napi" {
  import Database from "better-sqlite3";
  export default Database;
}
