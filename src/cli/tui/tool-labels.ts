/** `display.friendly_tool_labels`: what a tool call is doing, in words, for the progress lines. */

const LABELS: Record<string, string> = {
  terminal: "Running",
  process: "Managing a process",
  execute_code: "Running code",
  read_file: "Reading",
  write_file: "Writing",
  patch: "Editing",
  search_files: "Searching files",
  web_search: "Searching the web",
  web_extract: "Reading the page",
  browser_navigate: "Opening",
  browser_snapshot: "Looking at the page",
  browser_click: "Clicking",
  browser_type: "Typing",
  browser_press: "Pressing",
  browser_scroll: "Scrolling",
  browser_back: "Going back",
  browser_console: "Reading the console",
  browser_get_images: "Listing images",
  browser_vision: "Looking at the page",
  vision_analyze: "Looking at the image",
  image_generate: "Drawing",
  mixture_of_agents: "Consulting several models",
  x_search: "Searching X",
  text_to_speech: "Speaking",
  memory: "Updating memory",
  session_search: "Searching past sessions",
  skills_list: "Listing skills",
  skill_view: "Reading skill",
  skill_manage: "Updating skill",
  todo: "Updating the task list",
  clarify: "Asking",
  cronjob: "Scheduling",
  send_message: "Sending a message",
  delegate_task: "Delegating",
  ha_list_entities: "Listing devices",
  ha_get_state: "Checking device",
  ha_list_services: "Listing services",
  ha_call_service: "Controlling device",
};

/** The name a progress line shows for `tool`: a label in words, or the tool's own name. */
export function toolLabel(tool: string, friendly: boolean): string {
  return (friendly && LABELS[tool]) || tool;
}
