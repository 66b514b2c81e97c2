"""A Python tool that makes one request per URL through volent_tool
(tests/volent/tool_http_test.py): its result is each answer's status, or
the kind of error it was."""
import volent_tool

statuses = []
for url in volent_tool.arguments()["urls"]:
    try:
        statuses.append(volent_tool.http_request("GET", url)["status"])
    except volent_tool.HttpError as error:
        statuses.append(error.kind)
volent_tool.respond({"statuses": statuses})
