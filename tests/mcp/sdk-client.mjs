// sandcap-mcp driven by the official MCP TypeScript SDK (@modelcontextprotocol/sdk): the
// handshake, the tools, a call that succeeds, one that hits the memory limit (--as), one that
// times out, the session's CPU-time budget spent across calls, file tools confined to the
// workspace, and a clean shutdown that leaves nothing.  Prints TAP; run by
// python/tests/test_mcp_sdk.py, which installs the SDK first.
//   node sdk-client.mjs SDK_DIR PYTHON RUNDIR SCRATCH
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const [sdkDir, python, rundir, scratch] = process.argv.slice(2);
const require = createRequire(path.join(sdkDir, "package.json"));
const { Client } = await import(require.resolve("@modelcontextprotocol/sdk/client/index.js"));
const { StdioClientTransport } = await import(
	require.resolve("@modelcontextprotocol/sdk/client/stdio.js"));

let n = 0, failed = 0;
const ok = (cond, what) => {
	n++;
	if (!cond) failed++;
	console.log(`${cond ? "ok" : "not ok"} ${n} - ${what}`);
};
const sessions = () => {
	const d = path.join(rundir, "sandcap", "sessions");
	return fs.existsSync(d) ? fs.readdirSync(d) : [];
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const alive = (pid) => {
	try {
		return !/^State:\s*Z/m.test(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
	} catch {
		return false;
	}
};

const transport = new StdioClientTransport({
	command: python,
	args: ["-m", "sandcap.mcp", "--ttl", "10m", "--timeout", "30s", "--cpu-time", "2s",
		"--as", "1G", "--output-limit", "64K"],
	env: { ...process.env, XDG_RUNTIME_DIR: rundir },
	stderr: "inherit",
});
const client = new Client({ name: "sandcap-sdk-test", version: "1.0.0" });
await client.connect(transport);
const serverPid = transport.pid;
ok(client.getServerVersion()?.name === "sandcap-mcp", "initialize: the server names itself");
ok(sessions().length === 1, "one session was started");

const { tools } = await client.listTools();
ok(["run", "read_file", "write_file", "list_dir"].every((t) => tools.some((x) => x.name === t)),
	"tools/list offers run, read_file, write_file and list_dir");

const call = (name, args) => client.callTool({ name, arguments: args });
let r = await call("run", { argv: ["sh", "-c", "echo hello"] });
ok(!r.isError && r.structuredContent.verdict === "ok" && r.structuredContent.stdout === "hello\n",
	"a call that succeeds: verdict ok, its stdout");
ok(typeof r.structuredContent.usage.wall_ms === "number", "... with its usage");

r = await call("run", { argv: [python, "-c", "b = bytearray(512 << 20)"], address_space: "256M" });
ok(r.isError === true && /MemoryError/.test(r.structuredContent.stderr),
	`a call over its memory limit (--as 256M) fails as a tool result (${r.structuredContent.verdict})`);

r = await call("run", { shell: "sleep 60", timeout: "500ms" });
ok(r.isError === true && r.structuredContent.verdict === "timeout",
	"a call that times out: isError, verdict timeout");

let verdicts = [];
for (let i = 0; i < 6; i++) {
	r = await call("run", { shell: "while :; do :; done" });
	verdicts.push(r.structuredContent.verdict);
	if (r.structuredContent.verdict === "refused") break;
}
ok(verdicts[0] === "cpu-time" && verdicts.at(-1) === "refused" &&
	/budget/.test(r.content[0].text),
	`the session's CPU-time budget is spent across calls, then calls are refused (${verdicts})`);

r = await call("write_file", { path: "sub/a.txt", content: "data" });
ok(!r.isError, "write_file in the workspace");
r = await call("read_file", { path: "sub/a.txt" });
ok(!r.isError && r.content[0].text === "data", "read_file reads it back");
r = await call("list_dir", { path: "sub" });
ok(!r.isError && r.structuredContent.entries.some((e) => e.name === "a.txt"), "list_dir lists it");

fs.writeFileSync(path.join(scratch, "secret"), "keep");
r = await call("read_file", { path: "../state" });
ok(r.isError === true, "read_file ../state is refused");
r = await call("read_file", { path: path.join(scratch, "secret") });
ok(r.isError === true, "read_file of an absolute path outside the workspace is refused");
// Files made by the sandbox's commands: its files cannot lead the tools out.
const ws = (await client.readResource({ uri: "sandcap://session/report" })).contents[0].text;
const wsPath = JSON.parse(ws).workspace;
fs.symlinkSync(scratch, path.join(wsPath, "esc"));
fs.symlinkSync(path.join(scratch, "secret"), path.join(wsPath, "lnk"));
r = await call("read_file", { path: "esc/secret" });
ok(r.isError === true, "read_file through a symlinked directory is refused");
r = await call("write_file", { path: "lnk", content: "overwritten" });
ok(r.isError === true && fs.readFileSync(path.join(scratch, "secret"), "utf8") === "keep",
	"write_file through a symlink is refused and the target kept");

const rep = JSON.parse(ws);
ok(rep.sandcap_session === 1 && rep.totals.calls >= 4, "the session report is a resource");

await client.close();
let gone = false;
for (let i = 0; i < 200 && !gone; i++) {
	gone = sessions().length === 0 && !alive(serverPid);
	if (!gone) await sleep(50);
}
ok(gone, "after close: no session directory and no server process left");
console.log(`1..${n}`);
process.exit(failed ? 1 : 0);
