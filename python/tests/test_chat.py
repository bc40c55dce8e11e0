"""pytest for chat with tools (edgeq/chat.py): renderings against @huggingface/jinja's goldens
(jinja/testdata, $EDGEQ_JINJA_TESTDATA) and tool calls parsed into name + JSON arguments."""
import json
import os

import pytest

import edgeq

TESTDATA = os.environ.get("EDGEQ_JINJA_TESTDATA", "jinja/testdata")


def _read(name):
    with open(os.path.join(TESTDATA, name), encoding="utf-8") as f:
        return f.read()


def _golden(template, conversation, add_generation_prompt):
    for r in json.loads(_read("goldens.json"))["renderings"]:
        if (r["template"], r["conversation"], r["add_generation_prompt"]) == (
                template, conversation, add_generation_prompt):
            return r["text"]
    raise KeyError(conversation)


@pytest.fixture(scope="module")
def model():
    # stories260K: the llama vocabulary, whose <s>/</s> the own-template goldens use.
    return edgeq.llm.Model(os.environ["EDGEQ_MODEL"])


def test_render_with_tools_equals_huggingface_jinja(model):
    template = _read("own_template.jinja")
    convs = json.loads(_read("conversations.json"))
    for name in ("tools_object_args", "tools_string_args", "tools_no_calls", "system_user"):
        conv = convs[name]
        for agp in (False, True):
            got = model.chat_render(conv["messages"], tools=conv.get("tools"), template=template,
                                    add_generation_prompt=agp)
            assert got == _golden("own", name, agp), (name, agp)


def test_chat_tokenize_is_the_rendering_tokenized(model):
    template = _read("own_template.jinja")
    conv = json.loads(_read("conversations.json"))["tools_object_args"]
    ids = model.chat_tokenize(conv["messages"], tools=conv["tools"], template=template)
    text = _golden("own", "tools_object_args", True)
    assert text.startswith("<s>")
    # BOS from the template's text, the rest as plain text (no other control token here).
    assert ids == [1] + model.tokenize(text[len("<s>"):], add_special=False)
    # JSON text is taken as given.
    assert model.chat_tokenize(json.dumps(conv["messages"]), tools=json.dumps(conv["tools"]),
                               template=template) == ids


def test_parse_the_qwen3_golden_call():
    text = _golden("qwen3", "tools_object_args", False)
    head = "<|im_start|>assistant\n"
    start = text.index(head + "<tool_call>") + len(head)
    reply = text[start:text.index("<|im_end|>", start)]
    parsed = edgeq.parse_tool_calls(reply, format="hermes")
    assert parsed.format == "hermes" and parsed.content == ""
    assert parsed.tool_calls == [edgeq.ToolCall("get_weather", {"city": "Paris", "unit": "celsius"},
                                                '{"city":"Paris","unit":"celsius"}')]
    conv = json.loads(_read("conversations.json"))["tools_object_args"]
    assert parsed.message == conv["messages"][2]


def test_parse_with_the_models_template(model):
    reply = 'Let me see. {"name": "get_time", "parameters": {"timezone": "UTC"}}'
    with pytest.raises(edgeq.EdgeqError, match="tokenizer.chat_template") as e:
        model.parse_tool_calls(reply)  # stories260K carries no template
    assert e.value.status == 2  # EDGEQ_ERROR_NOT_FOUND
    llama31 = "<|start_header_id|>{{ '<|python_tag|>' }}"
    assert edgeq.tool_call_format(llama31) == "llama3.1"
    parsed = model.parse_tool_calls('{"name": "get_time", "parameters": {"timezone": "UTC"}}',
                                    template=llama31)
    assert parsed.format == "llama3.1"
    assert [(c.name, c.arguments) for c in parsed.tool_calls] == [("get_time",
                                                                   {"timezone": "UTC"})]
    plain = model.parse_tool_calls("  It is sunny. ", template="{{ '<tool_call>' }}")
    assert plain.tool_calls == [] and plain.content == "It is sunny."
    assert plain.message == {"role": "assistant", "content": "It is sunny."}


def test_errors():
    with pytest.raises(edgeq.EdgeqError, match="unknown tool-call format 'xml'") as e:
        edgeq.parse_tool_calls("x", format="xml")
    assert e.value.status == 1  # EDGEQ_ERROR_INVALID_ARGUMENT
    with pytest.raises(edgeq.EdgeqError, match=r"tool call \(hermes\)"):
        edgeq.parse_tool_calls('<tool_call>\n{"name": "f"', format="hermes")
    with pytest.raises(ValueError, match="reply holds a NUL"):
        edgeq.parse_tool_calls("a\0b", format="hermes")


def test_render_errors(model):
    with pytest.raises(edgeq.EdgeqError, match="messages_json is not a JSON array"):
        model.chat_render({"role": "user"}, template="{{ 1 }}")
    with pytest.raises(edgeq.EdgeqError, match="^chat template: no tools$") as e:
        model.chat_render([], tools=[{"type": "function"}],
                          template="{{ raise_exception('no tools') if tools }}")
    assert e.value.status == 4  # EDGEQ_ERROR_FAILED_PRECONDITION
