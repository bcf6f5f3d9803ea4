"""Documents: upload (→ an ingestion job), list, delete, browse a tree.

``doc_id`` contains slashes (``pump/pump-x200.md``), so the routes take it as a ``path``
parameter and the tree and diff routes are declared first: ``/v1/documents/{doc_id}/tree`` is
the tree of ``doc_id``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Path, Query, Request, Response, UploadFile
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from api.deps import EditorDep, IndexDep, ReaderDep, RunnerDep
from api.models import errors
from api.service.actions import record_write
from api.service.changes import DiffPublic, what_changed
from api.service.job_models import JobCreatedPublic
from api.service.node_models import TreeNodePublic
from indexer.doc_ids import DOC_ID_MAX_CHARS, normalize_doc_id
from indexer.errors import InvalidRequestError

router = APIRouter(prefix="/v1", tags=["documents"])
_CHUNK = 1024 * 1024


class DocumentPublic(BaseModel):
    """A served document: its current revision and counts."""

    model_config = ConfigDict(extra="allow")

    doc_id: str
    source: str
    revision: str = Field(description="Content hash of the served revision.")
    format: str
    summarizer: str
    root_node: str | None
    indexed_at: float | None = Field(description="When the served revision was published.")
    nodes: int | None = None
    passages: int | None = None
    summaries: int | None = None
    depth: int | None = None


class DocumentsPublic(BaseModel):
    """``GET /v1/documents``."""

    documents: list[DocumentPublic]


class DocumentDeleted(BaseModel):
    """``DELETE /v1/documents/{doc_id}``."""

    deleted: str


DOC_ID_FORMAT = (
    "Format `doc-id`: a relative, slash-separated name (`pump/pump-x200.md`); backslashes, `//` "
    "and `./` are normalized; absolute paths, drive letters, `..` segments and control "
    "characters are refused with 422."
)
DocIdPath = Annotated[
    str,
    Path(description="The document's id. " + DOC_ID_FORMAT, json_schema_extra={"format": "doc-id"}),
]
_FORM_FIELDS = frozenset({"file", "doc_id"})


async def known_form_fields(request: Request) -> None:
    """Refuse an upload form with fields other than ``file`` and ``doc_id``, or with one of them
    twice (FastAPI would silently take the last), as JSON bodies are refused."""
    form = await request.form()  # parsed once: FastAPI has read it already
    unknown = sorted(set(form.keys()) - _FORM_FIELDS)
    if unknown:
        raise InvalidRequestError(
            f"unknown form field {unknown[0]!r} (fields: file, doc_id)",
            detail=[_form_problem(name, "Extra inputs are not permitted") for name in unknown],
        )
    repeated = sorted(name for name in _FORM_FIELDS if len(form.getlist(name)) > 1)
    if repeated:
        raise InvalidRequestError(
            f"form field {repeated[0]!r} given more than once (upload one file per request)",
            detail=[_form_problem(name, "Given more than once") for name in repeated],
        )


def _form_problem(name: str, message: str) -> dict[str, Any]:
    kind = "extra_forbidden" if message.startswith("Extra") else "repeated"
    return {"loc": ["body", name], "msg": message, "type": kind}


def _chunks(fh: IO[bytes]) -> Iterator[bytes]:
    while chunk := fh.read(_CHUNK):
        yield chunk


@router.post(
    "/documents",
    status_code=202,
    response_model=JobCreatedPublic,
    responses=errors(400, 401, 403, 413, 415, 422, 429),
    summary="Upload a document (new or a new revision): starts an ingestion job",
    dependencies=[Depends(known_form_fields)],
)
def upload_document(
    runner: RunnerDep,
    principal: EditorDep,
    response: Response,
    file: Annotated[
        UploadFile,
        File(description="The document: .md, .markdown, .html, .htm, .pdf, .txt (or .gz of one)."),
    ],
    doc_id: Annotated[
        str | None,
        Form(
            max_length=DOC_ID_MAX_CHARS,
            description="Stable id of the document; default: the uploaded file's name. "
            + DOC_ID_FORMAT,
            json_schema_extra={"format": "doc-id"},
        ),
    ] = None,
) -> JobCreatedPublic:
    """Check the upload (name, type, size, that it parses), save it and queue its ingestion.

    Poll ``GET /v1/jobs/{job_id}`` for progress and the report. Uploading an unchanged document
    makes a job that finishes at once with status ``unchanged`` in its report.
    """
    filename = (file.filename or "").replace("\\", "/").strip()
    if doc_id is None or not doc_id.strip():
        doc_id = filename
    if not doc_id:
        raise InvalidRequestError("the uploaded file has no name: give a doc_id")
    name = filename or doc_id
    doc_id = runner.check_upload(doc_id=doc_id, filename=name)
    upload = runner.save_upload(_chunks(file.file))
    job = runner.submit(upload, doc_id=doc_id, filename=name)
    record_write(
        runner.index.catalog,
        principal,
        "document.upload",
        doc_id=job.doc_id,
        job_id=job.job_id,
        filename=name,
        size=upload.size,
    )
    response.headers["Location"] = f"/v1/jobs/{job.job_id}"
    return JobCreatedPublic(job_id=job.job_id, doc_id=job.doc_id, status=job.status)


@router.get(
    "/documents",
    response_model=DocumentsPublic,
    responses=errors(401, 403),
    summary="List the served documents",
)
async def list_documents(index: IndexDep, _: ReaderDep) -> DocumentsPublic:
    """Every document with a complete revision, with its counts."""
    rows: list[dict[str, Any]] = await run_in_threadpool(index.documents)
    return DocumentsPublic(documents=[DocumentPublic.model_validate(r) for r in rows])


@router.get(
    "/documents/{doc_id:path}/tree",
    response_model=TreeNodePublic,
    responses=errors(401, 403, 404, 422),
    summary="A document's served tree",
)
async def document_tree(doc_id: DocIdPath, index: IndexDep, _: ReaderDep) -> TreeNodePublic:
    """The served revision's tree: headings or clusters with summaries, down to passages."""
    tree = await run_in_threadpool(index.tree, normalize_doc_id(doc_id))
    return TreeNodePublic.model_validate(tree)


@router.get(
    "/documents/{doc_id:path}/diff",
    response_model=DiffPublic,
    response_model_by_alias=True,
    responses=errors(401, 403, 404, 410, 422),
    summary="What changed between two revisions of a document",
)
async def document_diff(
    doc_id: DocIdPath,
    index: IndexDep,
    _: ReaderDep,
    from_: Annotated[str | None, Query(alias="from", description="Older revision.")] = None,
    to: Annotated[str | None, Query(description="Newer revision (hash or prefix).")] = None,
) -> DiffPublic:
    """Sections added, removed, moved, renamed and changed; default: the last two revisions.
    A revision the retention rule dropped answers 410."""
    return await run_in_threadpool(
        what_changed, index.catalog, normalize_doc_id(doc_id), from_revision=from_, to_revision=to
    )


@router.delete(
    "/documents/{doc_id:path}",
    response_model=DocumentDeleted,
    responses=errors(401, 403, 404, 422),
    summary="Delete a document, all its revisions and its vectors",
)
async def delete_document(
    doc_id: DocIdPath, index: IndexDep, principal: EditorDep
) -> DocumentDeleted:
    """Remove a document. Waits for an ingestion running in the store to finish first."""
    doc_id = normalize_doc_id(doc_id)
    await run_in_threadpool(index.delete, doc_id)
    await run_in_threadpool(
        record_write, index.catalog, principal, "document.delete", doc_id=doc_id
    )
    return DocumentDeleted(deleted=doc_id)
