"""Chat with tools (the C API's edgeq_llm_chat_render / _chat_tokenize_json / _parse_tool_calls).

    model = edgeq.llm.Model("qwen3.gguf")
    prompt = model.chat_render(messages, tools=tools)      # the model's own Jinja template
    ids = model.chat_tokenize(messages, tools=tools)       # its ids, control tokens matched
    parsed = model.parse_tool_calls(reply)                 # the text the model wrote
    for call in parsed.tool_calls:
        print(call.name, call.arguments)                   # "get_weather" {"city": "Paris"}
    messages.append(parsed.message)                        # the assistant turn, as HF passes it

edgeq.parse_tool_calls(reply, format="hermes") parses without a model ("hermes", "llama3.1",
"deepseek-v3", "mistral", "gpt-oss", "generic"). Messages and tools are lists of dicts (or their
JSON text), as Hugging Face's apply_chat_template takes them.
"""
import collections
import ctypes as _c
import json as _json

from . import _BUFFER_TOO_SMALL, _check, _cstr, _i32, _lib, _sig, _sz

_vp, _cp = _c.c_void_p, _c.c_char_p
_sig("edgeq_llm_chat_render", _c.c_int, _vp, _cp, _cp, _cp, _c.c_int, _cp, _sz, _c.POINTER(_sz))
_sig("edgeq_llm_chat_tokenize_json", _c.c_int, _vp, _cp, _cp, _cp, _c.c_int,
     _c.POINTER(_i32), _sz, _c.POINTER(_sz))
_sig("edgeq_llm_parse_tool_calls", _c.c_int, _vp, _cp, _cp, _c.POINTER(_vp))
_sig("edgeq_parse_tool_calls", _c.c_int, _cp, _cp, _c.POINTER(_vp))
_sig("edgeq_tool_call_format", _cp, _cp)
_sig("edgeq_tool_calls_free", None, _vp)
_sig("edgeq_tool_calls_format", _cp, _vp)
_sig("edgeq_tool_calls_count", _sz, _vp)
_sig("edgeq_tool_calls_get", _c.c_int, _vp, _sz, _c.POINTER(_cp), _c.POINTER(_cp))
_sig("edgeq_tool_calls_content", _cp, _vp)
_sig("edgeq_tool_calls_message", _cp, _vp)

# name: str; arguments: dict (the parsed JSON object); arguments_json: its text as the C API
# gives it (compact, keys in the model's order).
ToolCall = collections.namedtuple("ToolCall", ["name", "arguments", "arguments_json"])
# content: the reply without its calls; tool_calls: [ToolCall]; message: the assistant message
# (dict) for the conversation; format: the call format used.
ParsedReply = collections.namedtuple("ParsedReply", ["content", "tool_calls", "message",
                                                     "format"])


def _json_arg(value, what):
    if value is None:
        return None
    if not isinstance(value, (str, bytes)):
        value = _json.dumps(value, ensure_ascii=False)
    return _cstr(value, what)


def _template_arg(template):
    return None if template is None else _cstr(template, "template")


def _collect(handle):
    try:
        calls = []
        for i in range(_lib.edgeq_tool_calls_count(handle)):
            name, args = _cp(), _cp()
            _check(_lib.edgeq_tool_calls_get(handle, i, _c.byref(name), _c.byref(args)))
            text = args.value.decode()
            calls.append(ToolCall(name.value.decode(), _json.loads(text), text))
        return ParsedReply(_lib.edgeq_tool_calls_content(handle).decode(), calls,
                           _json.loads(_lib.edgeq_tool_calls_message(handle).decode()),
                           _lib.edgeq_tool_calls_format(handle).decode())
    finally:
        _lib.edgeq_tool_calls_free(handle)


def parse_tool_calls(reply, format="generic"):
    """The tool calls in `reply` written in `format` -> ParsedReply. EdgeqError naming the format
    for a call that is cut off or not JSON, or an unknown format."""
    h = _vp()
    _check(_lib.edgeq_parse_tool_calls(_cstr(format, "format"), _cstr(reply, "reply"),
                                       _c.byref(h)))
    return _collect(h)


def tool_call_format(template_text):
    """The call format a chat template's text asks for ("hermes", "llama3.1", ..., "generic")."""
    return _lib.edgeq_tool_call_format(_cstr(template_text, "template_text")).decode()


def render(model_handle, messages, tools, template, add_generation_prompt):
    args = (model_handle, _template_arg(template), _json_arg(messages, "messages"),
            _json_arg(tools, "tools"), int(bool(add_generation_prompt)))
    length = _sz()
    status = _lib.edgeq_llm_chat_render(*args, None, 0, _c.byref(length))
    if status != _BUFFER_TOO_SMALL:
        _check(status)
    buf = _c.create_string_buffer(length.value + 1)
    _check(_lib.edgeq_llm_chat_render(*args, buf, len(buf), _c.byref(length)))
    return buf.raw[:length.value].decode("utf-8", "replace")


def tokenize(model_handle, messages, tools, template, add_generation_prompt):
    args = (model_handle, _template_arg(template), _json_arg(messages, "messages"),
            _json_arg(tools, "tools"), int(bool(add_generation_prompt)))
    n = _sz()
    status = _lib.edgeq_llm_chat_tokenize_json(*args, None, 0, _c.byref(n))
    if status != _BUFFER_TOO_SMALL:
        _check(status)
    buf = (_i32 * max(1, n.value))()
    _check(_lib.edgeq_llm_chat_tokenize_json(*args, buf, len(buf), _c.byref(n)))
    return list(buf[:n.value])


def parse(model_handle, reply, template):
    h = _vp()
    _check(_lib.edgeq_llm_parse_tool_calls(model_handle, _template_arg(template),
                                           _cstr(reply, "reply"), _c.byref(h)))
    return _collect(h)
