"""Validates real HTTP exchanges against OpenAPI 3.1 documents with openapi-core.

An implementation independent of the project's own checks (ajv in
tests/support/openapi.mjs, schemathesis' generated requests): the documents as the
Worker serves them, and requests and answers as they went over the wire.

Reads JSON objects from standard input, one a line, each

  {"documents": {"<served path>": <document>, ...},
   "exchanges": [{"document": "<served path>", "method": "GET", "url": "http://host:port/v1/x?a=1",
                  "requestHeaders": {...}, "requestBody": "<text>" | null,
                  "status": 200, "responseHeaders": {...} or [[name, value], ...],
                  "responseBody": "<text or base64>", "responseEncoding": "text" | "base64",
                  "validateRequest": true | false,
                  "documented": true | false,
                  "documentedAs": "get" (optional)}, ...]}

and answers each with a line {"results": [{"ok": bool, "errors": [...]}, ...], "openapi_core":
version}, one result per exchange in order; it exits 0 at the end of its input: the
caller decides what fails. One process serves a whole test file, so the interpreter and
openapi-core start once, and a document sent again (the same JSON) is not read again.
Each document is itself checked as an OpenAPI 3.1 document first (openapi-spec-validator,
as openapi-core does by default); a document that is not one stops the run.

- validateRequest: the request is also validated (security, parameters, body); only
  for requests the caller sends as valid ones.
- documented false: the caller expects the document to describe no operation for the
  method and path (an unknown path, a method the path lacks, a CORS preflight): that
  is checked, and a body must be JSON of the document's components/schemas/Error,
  the shape of every error answer.
- documentedAs: the answer is documented under another method of the same path (the
  prediction API's document lists 405, for a method a path lacks, among the answers
  of the path's operations).
"""

import base64
import json
import sys
from http.cookies import SimpleCookie
from importlib.metadata import version
from urllib.parse import parse_qsl, urlsplit

from openapi_core import Config, OpenAPI
from openapi_core.datatypes import RequestParameters
from openapi_core.deserializing.media_types.util import json_loads, plain_loads
from openapi_core.templating.paths.exceptions import OperationNotFound, PathNotFound
from openapi_schema_validator import OAS31Validator
from werkzeug.datastructures import Headers, ImmutableMultiDict

# openapi-core reads a media type it does not know as bytes: GeoJSON is JSON and is
# checked as such, CSV as text. A vector tile's body stays binary, and openapi-core's
# OpenAPI 3.1 schema validation has no type that bytes are (`type: string, format:
# binary` refuses them), so a tile is handed over as a latin-1 string, one character a
# byte: for a tile, openapi-core validates the status, the headers and the content
# type, and of the body only that there is one where the document says so.
CONFIG = Config(extra_media_type_deserializers={
    'application/geo+json': json_loads,
    'text/csv': plain_loads,
    'application/vnd.mapbox-vector-tile': lambda value, **_: value.decode('latin-1'),
})
# Long values (a tile, a whole answer) are cut in the report.
REPORT_CHARS = 600


def relative_servers(document):
    """The document with its servers made relative (`/v1`, `/`): the Worker under test
    answers on a free port, the documents name `make run`'s."""
    document = dict(document)
    document['servers'] = [
        {**server, 'url': urlsplit(server['url']).path or '/'} for server in document.get('servers', [{'url': '/'}])
    ]
    return document


def header_list(given):
    """Headers from an object or from [name, value] pairs (a repeated Set-Cookie)."""
    given = given or {}
    return Headers(list(given.items()) if isinstance(given, dict) else [tuple(pair) for pair in given])


class Request:
    """openapi-core's Request protocol over one recorded request."""

    def __init__(self, exchange, method=None):
        url = urlsplit(exchange['url'])
        headers = header_list(exchange.get('requestHeaders'))
        cookie = SimpleCookie()
        cookie.load(headers.get('cookie', ''))
        self.host_url = f'{url.scheme}://{url.netloc}'
        self.path = url.path
        self.method = (method or exchange['method']).lower()
        self.parameters = RequestParameters(
            query=ImmutableMultiDict(parse_qsl(url.query, keep_blank_values=True)),
            header=headers,
            cookie=ImmutableMultiDict({name: morsel.value for name, morsel in cookie.items()}),
        )
        body = exchange.get('requestBody')
        self.body = None if body is None else body.encode()
        self.content_type = headers.get('content-type', '').lower()


class Response:
    """openapi-core's Response protocol over one recorded answer."""

    def __init__(self, exchange):
        self.status_code = exchange['status']
        self.headers = header_list(exchange.get('responseHeaders'))
        self.content_type = self.headers.get('content-type', '').lower()
        body = exchange.get('responseBody') or ''
        self.data = base64.b64decode(body) if exchange.get('responseEncoding') == 'base64' else body.encode()


def describe(error):
    """An openapi-core error in a line, and each schema error under it with where it is."""
    name = type(error).__name__
    schema_errors = getattr(error.__cause__, 'schema_errors', None) or getattr(error, 'schema_errors', None)
    if not schema_errors:
        text = str(error)
        return (text if text.startswith(name) else f'{name}: {text}')[:REPORT_CHARS]
    # The headers' errors name the header; the body's are found by their path.
    lines = [name + (f' {error.name}' if getattr(error, 'name', None) else '')]
    for schema_error in schema_errors:
        where = '/'.join(str(p) for p in getattr(schema_error, 'absolute_path', []))
        lines.append(f'    at /{where}: {str(getattr(schema_error, "message", schema_error))[:REPORT_CHARS]}')
    return '\n'.join(lines)


def undocumented(app, document, exchange):
    """Errors of an exchange the caller expects the document not to describe."""
    errors = []
    request = Request(exchange)
    base = urlsplit(document.get('servers', [{'url': '/'}])[0]['url']).path.rstrip('/')
    path = request.path[len(base):] if request.path.startswith(base + '/') else None
    # OpenAPI matches a concrete path before a templated one; openapi-core's finder
    # goes on to a template when the concrete path lacks the method.
    if path in document['paths']:
        if request.method in document['paths'][path]:
            errors.append(f'the document describes {request.method.upper()} {path}, which the caller took for undocumented')
    else:
        try:
            found = app.request_validator.path_finder.find(request.method, request.host_url + request.path)
            errors.append(f'the document describes {request.method.upper()} {found.path_result.pattern}, which the caller took for undocumented')
        except (PathNotFound, OperationNotFound):
            pass
    response = Response(exchange)
    if response.data:
        if not response.content_type.startswith('application/json'):
            return errors + [f'a body of {response.content_type or "no content type"}, not an error in JSON']
        try:
            body = json.loads(response.data)
        except ValueError as error:
            return errors + [f'body is not JSON: {error}']
        schema = {**document['components']['schemas']['Error'], 'components': document['components']}
        validator = OAS31Validator(schema)
        errors += [f'Error schema at /{"/".join(map(str, e.absolute_path))}: {e.message}' for e in validator.iter_errors(body)]
    return errors


def validate(apps, documents, exchange):
    app = apps[exchange['document']]
    if not exchange.get('documented', True):
        return undocumented(app, documents[exchange['document']], exchange)
    errors = []
    if exchange.get('validateRequest'):
        errors += [f'request: {describe(e)}' for e in app.iter_request_errors(Request(exchange))]
    request = Request(exchange, exchange.get('documentedAs'))
    errors += [f'response: {describe(e)}' for e in app.iter_response_errors(request, Response(exchange))]
    return errors


def report(given, apps):
    """The report on one input; `apps` keeps each document's OpenAPI by its JSON text."""
    documents = given['documents']
    by_path = {}
    for path, document in documents.items():
        text = json.dumps(document, sort_keys=True)
        if text not in apps:
            apps[text] = OpenAPI.from_dict(relative_servers(document), config=CONFIG)
        by_path[path] = apps[text]
    results = []
    for exchange in given['exchanges']:
        try:
            errors = validate(by_path, documents, exchange)
        except Exception as error:  # a crash on one exchange is that exchange's failure, not the run's
            errors = [f'validator error: {type(error).__name__}: {error}']
        results.append({'ok': not errors, 'errors': errors})
    return {'results': results, 'openapi_core': version('openapi-core')}


def main():
    apps = {}
    for line in sys.stdin:
        if line.strip():
            sys.stdout.write(json.dumps(report(json.loads(line), apps)) + '\n')
            sys.stdout.flush()


if __name__ == '__main__':
    main()
