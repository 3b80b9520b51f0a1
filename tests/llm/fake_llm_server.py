#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A fake model server for the provider tests: it speaks, byte for byte, the streaming wire
formats of OpenAI's Chat Completions and Responses API, Ollama's /v1, llama.cpp's
llama-server and Anthropic's Messages API, as a script tells it to.

    fake_llm_server.py SCRIPT.json REQUESTS.jsonl

Binds 127.0.0.1 (or $FAKE_LLM_BIND: another address of this machine, to be a server that
is not on loopback) on a free port and prints the port on its first line. Every request is
appended to REQUESTS.jsonl as {"method", "path", "headers" (names in lower case), "body",
"body_sha256" (of the bytes as received), "body_bytes"}.

The script is a JSON object:

    {"responses": [RESPONSE, ...],          served in order, one per POST to
                                            .../chat/completions, .../responses or
                                            .../messages;
                                            the last one repeats
     "models": {"flavor": F, "ids": [...], "status": 200,    GET .../models
                "key": "...", "delay_ms": N}}

"models" answers in OpenAI's format ({"object": "list", "data": [{"id", "object", "created",
"owned_by"}]}) or, for "anthropic", Anthropic's ({"data": [{"type": "model", "id",
"display_name", "created_at"}], "has_more", "first_id", "last_id"}), the ids in the order given.
With "key", a request without that key (Authorization: Bearer, or Anthropic's x-api-key) gets
401 with the body the vendor sends for a missing or wrong key; Anthropic without an
anthropic-version header gets 400. "delay_ms" waits before answering.

A RESPONSE:

    "flavor":  "openai" | "responses" | "ollama" | "llamacpp" | "anthropic"
    "status":  HTTP status (200); anything else sends the flavour's JSON error body
    "message": the error message in that body
    "headers": extra response headers, e.g. {"retry-after": "2"}
    "turn":    {"text": "...", "tool_calls": [{"name": ..., "arguments": "<raw text>"}],
                "finish": "stop" | "tool_calls" | "end_turn" | "tool_use" | ...,
                "usage": {"input": N, "output": N, "cached": N, "reasoning": N,
                          "cache_write": N}}  (Anthropic: input counts neither cache)
    "cut_after_events":  N   close the connection after N events (no last chunk)
    "end_after_events":  N   end the body cleanly after N events (no [DONE] / message_stop)
    "error_event": true      after end_after_events events, send the flavour's error event
                             (llama.cpp: {"error": {"code": 500, ...}}; Anthropic: event:
                             error, overloaded_error) and end
    "hang_after_events": N   send N events, then nothing for a minute
    "event_delay_ms": N      sleep between events
    "raw": "..."             send exactly this body (text/event-stream)

For "responses" (OpenAI's Responses API) the turn may also hold
    "reasoning": {"summary": "...", "encrypted": "..."}   a reasoning item first (its summary
                             streamed as reasoning_summary_text deltas, encrypted_content in
                             its output_item.done)
    "incomplete": "max_output_tokens"   end with response.incomplete for that reason
    "failed": {"code": ..., "message": ...}   end with response.failed (after
                             end_after_events events when given)
and error_event sends an `error` event ({"type": "error", "code", "message", "param"}).

OpenAI's Containers API and the code_interpreter tool (the "Runs on OpenAI" mode), as
documented: POST /v1/containers ({"name", "expires_after": {"anchor": "last_active_at",
"minutes"}}, checked), POST /v1/containers/{id}/files (multipart, one "file" part with a
filename, checked; stored as /mnt/data/<name>), GET /v1/containers/{id}/files/{file_id}/content,
DELETE /v1/containers/{id}. A container is a temporary folder: the code of a
code_interpreter call really runs there with this machine's python3 (/mnt/data in the code
is that folder), and the files it writes become container files (source "assistant"). The
script may hold
    "containers": {"create_statuses": [429, ...]}   answers to the first POST /containers
                             before the real one (each with retry-after: 1)
and a "responses" RESPONSE with the turn holding
    "code_interpreter": [{"code": "..."}, ...]   calls run in the request's container, streamed
                             with the documented events (output_item.added with the
                             code_interpreter_call item, .code_interpreter_call.in_progress,
                             _code.delta, _code.done, .interpreting, .completed,
                             output_item.done with outputs: logs, and an image per new .png
                             whose url is the container file's content URL), before the text
    "cite": [{"file": "out.csv", "filename": "shown name"}]   container_file_citation
                             annotations of the text for files the code wrote
                             (response.output_text.annotation.added, and in the message item)
    "expire_container": true   the request's container expires: answered 400 "Container is
                             expired." (and the container's routes 404 from then on)
A request offering code_interpreter must name an existing container and ask for
"code_interpreter_call.outputs" in include, or it gets 400.

Bodies go out in HTTP/1.1 chunked encoding, each event in several small writes, so the
client sees events split across reads.
"""
import hashlib
import json
import os
import random
import socket
import string
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

script = json.load(open(sys.argv[1], encoding="utf-8"))
log_path = sys.argv[2]
lock = threading.Lock()
state = {"next": 0}
rng = random.Random(7)

ALNUM = string.ascii_letters + string.digits


def rand_id(n, alphabet=ALNUM):
    return "".join(rng.choice(alphabet) for _ in range(n))


def pieces(text, lo=3, hi=9):
    out = []
    i = 0
    while i < len(text):
        n = rng.randint(lo, hi)
        out.append(text[i:i + n])
        i += n
    return out


def compact(obj, sort_keys=False):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, sort_keys=sort_keys)


def data_event(obj, sort_keys=False):
    return "data: " + compact(obj, sort_keys) + "\n\n"


def named_event(name, obj, spaced=False):
    text = json.dumps(obj, ensure_ascii=False) if spaced else compact(obj)
    return "event: " + name + "\ndata: " + text + "\n\n"


def usage_of(turn):
    usage = turn.get("usage", {})
    return usage.get("input", 17), usage.get("output", 42)


# ---------------------------------------------------------------------------------------
# OpenAI: id and name once, then argument fragments keyed by index; finish in its own
# chunk; with include_usage every chunk has "usage": null and a last one "choices": [].

def openai_events(turn, request):
    model = request.get("model", "gpt-4o-mini")
    include_usage = (request.get("stream_options") or {}).get("include_usage", False)
    base = {"id": "chatcmpl-" + rand_id(29), "object": "chat.completion.chunk",
            "created": int(time.time()), "model": model + "-2024-07-18",
            "service_tier": "default", "system_fingerprint": "fp_44709d6fcb"}
    text = turn.get("text", "")
    calls = turn.get("tool_calls", [])
    finish = turn.get("finish", "tool_calls" if calls else "stop")

    def chunk(delta, finish_reason=None):
        obj = dict(base)
        obj["choices"] = [{"index": 0, "delta": delta, "logprobs": None,
                           "finish_reason": finish_reason}]
        if include_usage:
            obj["usage"] = None
        return data_event(obj)

    events = [chunk({"role": "assistant", "content": "" if text or not calls else None,
                     "refusal": None})]
    for piece in pieces(text):
        events.append(chunk({"content": piece}))
    for i, call in enumerate(calls):
        events.append(chunk({"tool_calls": [{"index": i, "id": call.get("id", "call_" + rand_id(24)),
                                             "type": "function",
                                             "function": {"name": call["name"], "arguments": ""}}]}))
        for piece in pieces(call.get("arguments", "")):
            events.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
    events.append(chunk({}, finish))
    if include_usage:
        prompt, completion = usage_of(turn)
        obj = dict(base)
        obj["choices"] = []
        obj["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion,
                        "total_tokens": prompt + completion,
                        "prompt_tokens_details": {"cached_tokens": turn.get("usage", {}).get("cached", 0),
                                                  "audio_tokens": 0},
                        "completion_tokens_details": {"reasoning_tokens": turn.get("usage", {}).get("reasoning", 0),
                                                      "audio_tokens": 0,
                                                      "accepted_prediction_tokens": 0,
                                                      "rejected_prediction_tokens": 0}}
        events.append(data_event(obj))
    events.append("data: [DONE]\n\n")
    return events


# Ollama's /v1: each call whole in one chunk, all with index 0, ids "call_" + 8 characters.

def ollama_events(turn, request):
    model = request.get("model", "llama3.1")
    include_usage = (request.get("stream_options") or {}).get("include_usage", False)
    base = {"id": "chatcmpl-" + str(rng.randint(100, 999)), "object": "chat.completion.chunk",
            "created": int(time.time()), "model": model, "system_fingerprint": "fp_ollama"}
    text = turn.get("text", "")
    calls = turn.get("tool_calls", [])
    finish = turn.get("finish", "tool_calls" if calls else "stop")

    def chunk(delta, finish_reason=None):
        obj = dict(base)
        obj["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish_reason}]
        return data_event(obj)

    events = []
    for piece in pieces(text):
        events.append(chunk({"role": "assistant", "content": piece}))
    for call in calls:
        events.append(chunk({"role": "assistant", "content": "",
                             "tool_calls": [{"id": call.get("id", "call_" + rand_id(8, string.ascii_lowercase + string.digits)),
                                             "index": 0, "type": "function",
                                             "function": {"name": call["name"],
                                                          "arguments": call.get("arguments", "")}}]}))
    events.append(chunk({"role": "assistant", "content": ""}, finish))
    if include_usage:
        prompt, completion = usage_of(turn)
        obj = dict(base)
        obj["choices"] = []
        obj["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion,
                        "total_tokens": prompt + completion}
        events.append(data_event(obj))
    events.append("data: [DONE]\n\n")
    return events


# llama-server --jinja: fragments like OpenAI, 32-character ids without a prefix, keys
# sorted (nlohmann::json), always a usage chunk with "timings".

def llamacpp_events(turn, request):
    base = {"created": int(time.time()), "id": "chatcmpl-" + rand_id(32),
            "model": "gpt-3.5-turbo", "system_fingerprint": "b5890-3e5a5a9d",
            "object": "chat.completion.chunk"}
    text = turn.get("text", "")
    calls = turn.get("tool_calls", [])
    finish = turn.get("finish", "tool_calls" if calls else "stop")

    def chunk(delta, finish_reason=None):
        obj = dict(base)
        obj["choices"] = [{"finish_reason": finish_reason, "index": 0, "delta": delta}]
        return data_event(obj, sort_keys=True)

    events = [chunk({"role": "assistant", "content": None})]
    for piece in pieces(text):
        events.append(chunk({"content": piece}))
    for i, call in enumerate(calls):
        events.append(chunk({"tool_calls": [{"index": i, "id": call.get("id", rand_id(32)),
                                             "type": "function",
                                             "function": {"name": call["name"], "arguments": ""}}]}))
        for piece in pieces(call.get("arguments", "")):
            events.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
    events.append(chunk({}, finish))
    prompt, completion = usage_of(turn)
    obj = dict(base)
    obj["choices"] = []
    obj["usage"] = {"completion_tokens": completion, "prompt_tokens": prompt,
                    "total_tokens": prompt + completion}
    obj["timings"] = {"prompt_n": prompt, "prompt_ms": 12.5, "prompt_per_token_ms": 0.73,
                      "prompt_per_second": 1360.0, "predicted_n": completion,
                      "predicted_ms": 420.1, "predicted_per_token_ms": 10.0,
                      "predicted_per_second": 99.97}
    events.append(data_event(obj, sort_keys=True))
    events.append("data: [DONE]\n\n")
    return events


# Anthropic: named events, ping after the first block starts, input_json_delta fragments.

def anthropic_events(turn, request):
    model = request.get("model", "claude-sonnet-4-20250514")
    text = turn.get("text", "")
    calls = turn.get("tool_calls", [])
    finish = turn.get("finish", "tool_use" if calls else "end_turn")
    prompt, completion = usage_of(turn)
    events = [named_event("message_start", {
        "type": "message_start",
        "message": {"id": "msg_01" + rand_id(22), "type": "message", "role": "assistant",
                    "model": model, "content": [], "stop_reason": None, "stop_sequence": None,
                    "usage": {"input_tokens": prompt,
                              "cache_creation_input_tokens": turn.get("usage", {}).get("cache_write", 0),
                              "cache_read_input_tokens": turn.get("usage", {}).get("cached", 0),
                              "output_tokens": 1,
                              "service_tier": "standard"}}})]
    index = 0
    if text:
        events.append(named_event("content_block_start", {
            "type": "content_block_start", "index": index,
            "content_block": {"type": "text", "text": ""}}))
        events.append(named_event("ping", {"type": "ping"}, spaced=True))
        for piece in pieces(text):
            events.append(named_event("content_block_delta", {
                "type": "content_block_delta", "index": index,
                "delta": {"type": "text_delta", "text": piece}}))
        events.append(named_event("content_block_stop", {"type": "content_block_stop",
                                                         "index": index}))
        index += 1
    for call in calls:
        events.append(named_event("content_block_start", {
            "type": "content_block_start", "index": index,
            "content_block": {"type": "tool_use", "id": call.get("id", "toolu_01" + rand_id(22)),
                              "name": call["name"], "input": {}}}))
        if index == 0:
            events.append(named_event("ping", {"type": "ping"}, spaced=True))
        events.append(named_event("content_block_delta", {
            "type": "content_block_delta", "index": index,
            "delta": {"type": "input_json_delta", "partial_json": ""}}))
        for piece in pieces(call.get("arguments", "")):
            events.append(named_event("content_block_delta", {
                "type": "content_block_delta", "index": index,
                "delta": {"type": "input_json_delta", "partial_json": piece}}))
        events.append(named_event("content_block_stop", {"type": "content_block_stop",
                                                         "index": index}))
        index += 1
    events.append(named_event("message_delta", {
        "type": "message_delta", "delta": {"stop_reason": finish, "stop_sequence": None},
        "usage": {"output_tokens": completion}}))
    events.append(named_event("message_stop", {"type": "message_stop"}))
    return events


# OpenAI's Responses API: named events whose data repeats the name in "type", numbered by
# sequence_number; per output item .added, its deltas, .done; the whole response again in
# response.completed (with usage), response.incomplete or response.failed. No [DONE].

def responses_events(turn, request):
    model = request.get("model", "gpt-5-mini")
    text = turn.get("text", "")
    calls = turn.get("tool_calls", [])
    reasoning = turn.get("reasoning")
    usage = turn.get("usage", {})
    resp_id = "resp_" + rand_id(48, string.hexdigits.lower()[:16])
    created = int(time.time())
    events = []

    def response(status, output, usage_obj=None, error=None, incomplete=None):
        return {"id": resp_id, "object": "response", "created_at": created, "status": status,
                "background": False, "error": error, "incomplete_details": incomplete,
                "instructions": request.get("instructions"),
                "max_output_tokens": request.get("max_output_tokens"), "max_tool_calls": None,
                "model": model + "-2025-08-07", "output": output, "parallel_tool_calls": True,
                "previous_response_id": None, "prompt_cache_key": None,
                "reasoning": {"effort": "medium", "summary": None}, "safety_identifier": None,
                "service_tier": "auto", "store": request.get("store", True),
                "temperature": 1.0, "text": {"format": {"type": "text"}, "verbosity": "medium"},
                "tool_choice": "auto", "tools": request.get("tools", []), "top_logprobs": 0,
                "top_p": 1.0, "truncation": "disabled", "usage": usage_obj, "user": None,
                "metadata": {}}

    def add(name, obj):
        obj = dict({"type": name}, **obj)
        events.append((name, obj))

    add("response.created", {"response": response("in_progress", [])})
    add("response.in_progress", {"response": response("in_progress", [])})
    output = []
    annotations = hosted_events(turn, request, add, output, request.get("_base", ""))
    if reasoning is not None:
        index = len(output)
        item_id = "rs_" + rand_id(48, string.hexdigits.lower()[:16])
        add("response.output_item.added", {"output_index": index,
                                           "item": {"id": item_id, "type": "reasoning", "summary": []}})
        summary = reasoning.get("summary", "")
        parts = []
        if summary:
            add("response.reasoning_summary_part.added",
                {"item_id": item_id, "output_index": index, "summary_index": 0,
                 "part": {"type": "summary_text", "text": ""}})
            for piece in pieces(summary):
                add("response.reasoning_summary_text.delta",
                    {"item_id": item_id, "output_index": index, "summary_index": 0, "delta": piece,
                     "obfuscation": rand_id(8)})
            add("response.reasoning_summary_text.done",
                {"item_id": item_id, "output_index": index, "summary_index": 0, "text": summary})
            add("response.reasoning_summary_part.done",
                {"item_id": item_id, "output_index": index, "summary_index": 0,
                 "part": {"type": "summary_text", "text": summary}})
            parts = [{"type": "summary_text", "text": summary}]
        item = {"id": item_id, "type": "reasoning", "summary": parts}
        if "reasoning.encrypted_content" in (request.get("include") or []):
            item["encrypted_content"] = reasoning.get("encrypted", "gAAAAAB" + rand_id(120))
        add("response.output_item.done", {"output_index": index, "item": item})
        output.append(item)
    if text:
        index = len(output)
        item_id = "msg_" + rand_id(48, string.hexdigits.lower()[:16])
        add("response.output_item.added", {"output_index": index, "item": {
            "id": item_id, "type": "message", "status": "in_progress", "content": [], "role": "assistant"}})
        add("response.content_part.added", {"item_id": item_id, "output_index": index, "content_index": 0,
                                            "part": {"type": "output_text", "annotations": [],
                                                     "logprobs": [], "text": ""}})
        for piece in pieces(text):
            add("response.output_text.delta", {"item_id": item_id, "output_index": index,
                                               "content_index": 0, "delta": piece, "logprobs": [],
                                               "obfuscation": rand_id(6)})
        for n, annotation in enumerate(annotations):
            annotation = dict(annotation, start_index=len(text), end_index=len(text))
            annotations[n] = annotation
            add("response.output_text.annotation.added", {"item_id": item_id, "output_index": index,
                                                          "content_index": 0, "annotation_index": n,
                                                          "annotation": annotation})
        add("response.output_text.done", {"item_id": item_id, "output_index": index, "content_index": 0,
                                          "text": text, "logprobs": []})
        part = {"type": "output_text", "annotations": annotations, "logprobs": [], "text": text}
        add("response.content_part.done", {"item_id": item_id, "output_index": index, "content_index": 0,
                                           "part": part})
        item = {"id": item_id, "type": "message", "status": "completed", "content": [part],
                "role": "assistant"}
        add("response.output_item.done", {"output_index": index, "item": item})
        output.append(item)
    for call in calls:
        index = len(output)
        item_id = "fc_" + rand_id(48, string.hexdigits.lower()[:16])
        call_id = call.get("id", "call_" + rand_id(24))
        arguments = call.get("arguments", "")
        add("response.output_item.added", {"output_index": index, "item": {
            "id": item_id, "type": "function_call", "status": "in_progress", "arguments": "",
            "call_id": call_id, "name": call["name"]}})
        for piece in pieces(arguments):
            add("response.function_call_arguments.delta", {"item_id": item_id, "output_index": index,
                                                           "delta": piece, "obfuscation": rand_id(6)})
        add("response.function_call_arguments.done", {"item_id": item_id, "output_index": index,
                                                      "arguments": arguments})
        item = {"id": item_id, "type": "function_call", "status": "completed", "arguments": arguments,
                "call_id": call_id, "name": call["name"]}
        add("response.output_item.done", {"output_index": index, "item": item})
        output.append(item)
    usage_obj = {"input_tokens": usage.get("input", 17),
                 "input_tokens_details": {"cached_tokens": usage.get("cached", 0)},
                 "output_tokens": usage.get("output", 42),
                 "output_tokens_details": {"reasoning_tokens": usage.get("reasoning", 0)},
                 "total_tokens": usage.get("input", 17) + usage.get("output", 42)}
    if "failed" in turn:
        failure = {"code": turn["failed"].get("code", "server_error"),
                   "message": turn["failed"].get("message", "The model failed to generate a response.")}
        add("response.failed", {"response": response("failed", output, None, error=failure)})
    elif "incomplete" in turn:
        add("response.incomplete", {"response": response("incomplete", output, usage_obj,
                                                         incomplete={"reason": turn["incomplete"]})})
    else:
        add("response.completed", {"response": response("completed", output, usage_obj)})
    return [named_event(name, dict(obj, sequence_number=n)) for n, (name, obj) in enumerate(events)]


CONTAINERS = {}


def container_files(cid):
    return CONTAINERS[cid]["files"]


def run_in_container(cid, code):
    """Runs CODE in the container's folder, /mnt/data being that folder; the logs, and the
    files it wrote (registered as container files)."""
    import subprocess
    folder = CONTAINERS[cid]["dir"]
    before = {f: os.path.getmtime(os.path.join(folder, f)) for f in os.listdir(folder)}
    proc = subprocess.run([sys.executable, "-c", code.replace("/mnt/data", folder)], cwd=folder,
                          capture_output=True, text=True, timeout=120)
    logs = proc.stdout + proc.stderr
    new = []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if name not in before or os.path.getmtime(path) != before[name]:
            fid = "cfile_" + rand_id(32, string.hexdigits.lower()[:16])
            container_files(cid)[fid] = {"name": name, "source": "assistant"}
            new.append((fid, name))
    return logs, proc.returncode, new


def hosted_events(turn, request, add, output, base):
    tools = request.get("tools") or []
    cid = next((t.get("container") for t in tools if t.get("type") == "code_interpreter"), None)
    for call in turn.get("code_interpreter", []):
        index = len(output)
        item_id = "ci_" + rand_id(48, string.hexdigits.lower()[:16])
        code = call["code"]
        add("response.output_item.added", {"output_index": index, "item": {
            "id": item_id, "type": "code_interpreter_call", "status": "in_progress", "code": "",
            "container_id": cid, "outputs": None}})
        add("response.code_interpreter_call.in_progress", {"output_index": index, "item_id": item_id})
        for piece in pieces(code):
            add("response.code_interpreter_call_code.delta", {"output_index": index, "item_id": item_id,
                                                              "delta": piece})
        add("response.code_interpreter_call_code.done", {"output_index": index, "item_id": item_id,
                                                         "code": code})
        add("response.code_interpreter_call.interpreting", {"output_index": index, "item_id": item_id})
        logs, rc, new = run_in_container(cid, code)
        add("response.code_interpreter_call.completed", {"output_index": index, "item_id": item_id})
        outputs = [{"type": "logs", "logs": logs}] if logs else []
        for fid, name in new:
            if name.endswith(".png"):
                outputs.append({"type": "image",
                                "url": "%s/containers/%s/files/%s/content" % (base, cid, fid)})
        item = {"id": item_id, "type": "code_interpreter_call", "status": "completed", "code": code,
                "container_id": cid,
                "outputs": outputs if "code_interpreter_call.outputs" in (request.get("include") or []) else None}
        add("response.output_item.done", {"output_index": index, "item": item})
        output.append(item)
    annotations = []
    for cite in turn.get("cite", []):
        fid = next((f for f, v in container_files(cid).items() if v["name"] == cite["file"]), None)
        annotations.append({"type": "container_file_citation", "container_id": cid, "file_id": fid,
                            "filename": cite.get("filename", cite["file"]), "start_index": 0,
                            "end_index": 0})
    return annotations


EVENTS = {"openai": openai_events, "responses": responses_events, "ollama": ollama_events, "llamacpp": llamacpp_events,
          "anthropic": anthropic_events}


def error_event(flavor):
    if flavor == "anthropic":
        return named_event("error", {"type": "error", "error": {"type": "overloaded_error",
                                                                "message": "Overloaded"}},
                           spaced=True)
    if flavor == "responses":
        return named_event("error", {"type": "error", "sequence_number": 3, "code": "server_error",
                                     "message": "the model crashed while decoding", "param": None})
    if flavor == "llamacpp":
        return data_event({"error": {"code": 500, "message": "the model crashed while decoding",
                                     "type": "server_error"}}, sort_keys=True)
    return data_event({"error": {"message": "the model crashed while decoding",
                                 "type": "server_error", "param": None, "code": None}})


ANTHROPIC_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error",
                         403: "permission_error", 404: "not_found_error",
                         413: "request_too_large", 429: "rate_limit_error", 500: "api_error",
                         529: "overloaded_error"}


def error_body(flavor, status, message):
    if flavor == "anthropic":
        return {"type": "error", "error": {"type": ANTHROPIC_ERROR_TYPES.get(status, "api_error"),
                                           "message": message}}
    if flavor == "llamacpp":
        return {"error": {"code": status, "message": message,
                          "type": "authentication_error" if status == 401 else "server_error"}}
    if flavor == "ollama":
        return {"error": {"message": message, "type": "api_error", "param": None, "code": None}}
    code = {401: "invalid_api_key", 404: "model_not_found", 429: "rate_limit_exceeded"}.get(status)
    return {"error": {"message": message, "type": "invalid_request_error" if status < 500
                      else "server_error", "param": None, "code": code}}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def record(self, body):
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = {"unparsable": body.decode("utf-8", "replace")}
        entry = {"method": self.command, "path": self.path,
                 "headers": {k.lower(): v for k, v in self.headers.items()}, "body": parsed,
                 "body_sha256": hashlib.sha256(body or b"").hexdigest(), "body_bytes": len(body or b"")}
        with lock:
            with open(log_path, "a", encoding="utf-8") as log:
                log.write(json.dumps(entry) + "\n")
        return parsed or {}

    def send_json(self, status, obj, headers=None):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def write_chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def write_event(self, text, delay_ms):
        data = text.encode()
        # Two or three writes per event, cut anywhere (inside "\n\n" too).
        cuts = sorted(rng.sample(range(1, len(data)), min(2, len(data) - 1))) if len(data) > 2 else []
        start = 0
        for cut in cuts + [len(data)]:
            self.write_chunk(data[start:cut])
            start = cut
            time.sleep(0.001)
        if delay_ms:
            time.sleep(delay_ms / 1000)

    def refuse_key(self, flavor, expected):
        """The vendor's answer to a missing or wrong key (None when the key is right)."""
        if flavor == "anthropic":
            if "anthropic-version" not in self.headers:
                return 400, {"type": "error", "error": {"type": "invalid_request_error",
                                                        "message": "anthropic-version: header is required"},
                             "request_id": "req_011C" + rand_id(20)}
            given = self.headers.get("x-api-key")
            if given == expected:
                return None
            return 401, {"type": "error", "error": {"type": "authentication_error",
                                                    "message": "x-api-key header is required"
                                                    if given is None else "invalid x-api-key"},
                         "request_id": "req_011C" + rand_id(20)}
        authorization = self.headers.get("Authorization")
        if authorization == "Bearer " + expected:
            return None
        if authorization is None or not authorization.startswith("Bearer "):
            return 401, {"error": {"message": "You didn't provide an API key. You need to provide your "
                                              "API key in an Authorization header using Bearer auth (i.e. "
                                              "Authorization: Bearer YOUR_KEY).",
                                   "type": "invalid_request_error", "param": None, "code": None}}
        given = authorization[len("Bearer "):]
        # OpenAI quotes the start and the end of the key it refused.
        return 401, {"error": {"message": "Incorrect API key provided: %s%s%s. You can find your API "
                                          "key at https://platform.openai.com/account/api-keys."
                                          % (given[:3], "*" * max(0, len(given) - 7), given[-4:]),
                               "type": "invalid_request_error", "param": None,
                               "code": "invalid_api_key"}}

    def do_GET(self):
        try:
            self.answer_get()
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (a cancelled check): nothing to answer.
            self.close_connection = True

    def answer_get(self):
        if self.containers_route():
            return
        self.record(b"")
        models = script.get("models", {})
        flavor = models.get("flavor", "openai")
        status = models.get("status", 200)
        if models.get("delay_ms"):
            time.sleep(models["delay_ms"] / 1000)
        if not self.path.split("?")[0].endswith("/models"):
            self.send_json(404, error_body(flavor, 404, "no such endpoint"))
            return
        if "key" in models:
            refusal = self.refuse_key(flavor, models["key"])
            if refusal is not None:
                self.send_json(*refusal)
                return
        if status != 200:
            self.send_json(status, error_body(flavor, status, models.get("message", "refused")))
            return
        ids = models.get("ids", [])
        if flavor == "anthropic":
            data = [{"type": "model", "id": i, "display_name": i.replace("-", " ").title(),
                     "created_at": "2025-05-22T00:00:00Z"} for i in ids]
            self.send_json(200, {"data": data, "has_more": False,
                                 "first_id": ids[0] if ids else None,
                                 "last_id": ids[-1] if ids else None})
        else:
            owner = {"ollama": "library", "llamacpp": "llamacpp"}.get(flavor, "system")
            self.send_json(200, {"object": "list",
                                 "data": [{"id": i, "object": "model", "created": 1715367049,
                                           "owned_by": owner} for i in ids]})

    def containers_route(self):
        """The Containers API; True when the path was one of its routes."""
        parts = self.path.split("?")[0].rstrip("/").split("/")
        if "containers" not in parts:
            return False
        parts = parts[parts.index("containers") + 1:]
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length) if length else b""
        if self.command == "POST" and parts == []:
            body = self.record(raw)
            with lock:
                statuses = script.setdefault("containers", {}).setdefault("create_statuses", [])
                status = statuses.pop(0) if statuses else 200
            if status != 200:
                self.send_json(status, error_body("responses", status, "Rate limit reached for containers"),
                               {"retry-after": "1"})
                return True
            expires = body.get("expires_after") if isinstance(body, dict) else None
            if (not isinstance(body.get("name"), str) or not isinstance(expires, dict)
                    or expires.get("anchor") != "last_active_at" or not isinstance(expires.get("minutes"), int)):
                self.send_json(400, error_body("responses", 400, "Invalid container request: %r" % (body,)))
                return True
            import tempfile
            cid = "cntr_" + rand_id(48, string.hexdigits.lower()[:16])
            # Beside the request log, so the test's folder holds (and removes) it.
            CONTAINERS[cid] = {"name": body["name"], "files": {}, "expired": False,
                               "dir": tempfile.mkdtemp(prefix="fake-container-",
                                                       dir=os.path.dirname(os.path.abspath(log_path)))}
            self.send_json(200, {"id": cid, "object": "container", "created_at": int(time.time()),
                                 "status": "running", "expires_after": expires,
                                 "last_active_at": int(time.time()), "name": body["name"]})
            return True
        cid = parts[0] if parts else None
        if cid not in CONTAINERS or CONTAINERS[cid]["expired"]:
            self.record(b"")
            self.send_json(404, error_body("responses", 404, "Container with id '%s' not found." % cid))
            return True
        folder = CONTAINERS[cid]["dir"]
        if self.command == "DELETE" and len(parts) == 1:
            self.record(b"")
            CONTAINERS[cid]["expired"] = True
            self.send_json(200, {"id": cid, "object": "container.deleted", "deleted": True})
            return True
        if self.command == "POST" and parts[1:] == ["files"]:
            from email.parser import BytesParser
            from email.policy import HTTP
            message = BytesParser(policy=HTTP).parsebytes(
                b"Content-Type: " + self.headers.get("Content-Type", "").encode() + b"\r\n\r\n" + raw)
            files = [p for p in message.iter_parts() if p.get_param("name", header="content-disposition") == "file"] \
                if message.is_multipart() else []
            summary = {"multipart": message.is_multipart(),
                       "parts": [p.get_param("name", header="content-disposition") for p in message.iter_parts()]
                       if message.is_multipart() else [],
                       "filename": files[0].get_filename() if len(files) == 1 else None}
            self.record(json.dumps(summary).encode())
            if len(files) != 1 or not files[0].get_filename():
                self.send_json(400, error_body("responses", 400, "Expected one multipart 'file' part with a filename"))
                return True
            name = os.path.basename(files[0].get_filename())
            data = files[0].get_payload(decode=True) or b""
            with open(os.path.join(folder, name), "wb") as f:
                f.write(data)
            fid = "cfile_" + rand_id(32, string.hexdigits.lower()[:16])
            container_files(cid)[fid] = {"name": name, "source": "user"}
            self.send_json(200, {"id": fid, "object": "container.file", "created_at": int(time.time()),
                                 "bytes": len(data), "container_id": cid, "path": "/mnt/data/" + name,
                                 "source": "user"})
            return True
        if self.command == "GET" and len(parts) == 4 and parts[1] == "files" and parts[3] == "content":
            self.record(b"")
            info = container_files(cid).get(parts[2])
            if info is None:
                self.send_json(404, error_body("responses", 404, "File not found"))
                return True
            with open(os.path.join(folder, info["name"]), "rb") as f:
                data = f.read()
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True
            return True
        self.record(b"")
        self.send_json(404, error_body("responses", 404, "no such endpoint"))
        return True

    def do_DELETE(self):
        if not self.containers_route():
            self.send_json(404, error_body("responses", 404, "no such endpoint"))

    def do_POST(self):
        if self.containers_route():
            return
        length = int(self.headers.get("Content-Length", "0"))
        request = self.record(self.rfile.read(length))
        with lock:
            responses = script["responses"]
            entry = responses[min(state["next"], len(responses) - 1)]
            state["next"] += 1
        flavor = entry.get("flavor", "openai")
        status = entry.get("status", 200)

        tools = request.get("tools") or [] if isinstance(request, dict) else []
        hosted = [t for t in tools if isinstance(t, dict) and t.get("type") == "code_interpreter"]
        if hosted:
            cid = hosted[0].get("container")
            if entry.get("expire_container") and cid in CONTAINERS:
                CONTAINERS[cid]["expired"] = True
                self.send_json(400, error_body("responses", 400, "Container is expired."))
                return
            if (not isinstance(cid, str) or cid not in CONTAINERS or CONTAINERS[cid]["expired"]
                    or "code_interpreter_call.outputs" not in (request.get("include") or [])):
                self.send_json(400, error_body("responses", 400,
                                               "code_interpreter needs a live container id and "
                                               "include code_interpreter_call.outputs"))
                return
            request["_base"] = "http://127.0.0.1:%d/v1" % self.server.server_address[1]

        if status != 200:
            self.close_connection = True
            self.send_json(status, entry.get("body") or
                           error_body(flavor, status, entry.get("message", "something failed")),
                           entry.get("headers"))
            return

        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in entry.get("headers", {}).items():
            self.send_header(name, value)
        self.end_headers()

        if "raw" in entry:
            events = [entry["raw"]]
        else:
            events = EVENTS[flavor](entry.get("turn", {}), request)
        delay = entry.get("event_delay_ms", 0)
        try:
            for n, event in enumerate(events):
                if n == entry.get("cut_after_events", -1):
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                if n == entry.get("hang_after_events", -1):
                    time.sleep(60)
                    return
                if n == entry.get("end_after_events", -1):
                    if entry.get("error_event"):
                        self.write_event(error_event(flavor), 0)
                    break
                self.write_event(event, delay)
            self.write_chunk(b"")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A client that stops reading (a file over its cap) is what some tests want.
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


server = Server((os.environ.get("FAKE_LLM_BIND", "127.0.0.1"), 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
