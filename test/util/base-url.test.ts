import assert from "node:assert/strict";
import { test } from "node:test";
import { baseUrlProblem, isLoopbackHost, isLoopbackUrl } from "../../src/util/base-url.js";

test("only this machine's loopback names count as loopback", () => {
  for (const host of ["localhost", "LOCALHOST", "127.0.0.1", "127.1.2.3", "::1", "[::1]"]) {
    assert.equal(isLoopbackHost(host), true, host);
  }
  for (const host of ["127.evil.example", "localhost.evil.example", "128.0.0.1", "::2", "example.com", ""]) {
    assert.equal(isLoopbackHost(host), false, host);
  }
  assert.equal(isLoopbackUrl("http://[::1]:8080/v1"), true);
  assert.equal(isLoopbackUrl("http://127.evil.example/v1"), false);
  assert.equal(isLoopbackUrl("not a url"), false);
  assert.equal(isLoopbackUrl(undefined), false);
});

test("a base URL without a scheme, with another scheme or unparsable says what is wrong", () => {
  assert.equal(baseUrlProblem("https://api.example/v1"), undefined);
  assert.match(baseUrlProblem("api.example/v1") ?? "", /no scheme .*http:\/\/api.example\/v1/);
  assert.match(baseUrlProblem("ftp://x") ?? "", /scheme is ftp:/);
  assert.match(baseUrlProblem("  ") ?? "", /empty/);
  assert.match(baseUrlProblem("http://") ?? "", /not a valid URL|no host/);
});
