"""The error tree: every error is a TocsearchError and, where natural, the matching builtin."""

from __future__ import annotations

import pickle

import pytest

from tocsearch import errors
from tocsearch.errors import (
    EventNotFound,
    GripNotFound,
    ImportFailed,
    InvalidArgument,
    InvalidId,
    NodeNotFound,
    NotFound,
    StorageError,
    StoreClosed,
    StoreCorrupted,
    StoreLocked,
    StoreReadOnly,
    TocsearchError,
    UnknownFormat,
)

PARENTS: dict[type[Exception], tuple[type[BaseException], ...]] = {
    InvalidArgument: (TocsearchError, ValueError),
    InvalidId: (InvalidArgument, TocsearchError, ValueError),
    NotFound: (TocsearchError, KeyError, LookupError),
    NodeNotFound: (NotFound, TocsearchError, KeyError),
    GripNotFound: (NotFound, TocsearchError, KeyError),
    EventNotFound: (NotFound, TocsearchError, KeyError),
    StorageError: (TocsearchError, OSError),
    StoreLocked: (StorageError, OSError),
    StoreReadOnly: (StorageError, OSError),
    StoreClosed: (StorageError, OSError),
    StoreCorrupted: (StorageError, OSError),
    ImportFailed: (TocsearchError, ValueError),
    UnknownFormat: (ImportFailed, TocsearchError, ValueError),
}


@pytest.mark.parametrize(("error", "parents"), list(PARENTS.items()), ids=lambda x: str(x))
def test_error_tree(error: type[Exception], parents: tuple[type[BaseException], ...]) -> None:
    """Each error inherits TocsearchError and the builtin its module docstring names."""
    for parent in parents:
        assert issubclass(error, parent)


def test_every_exported_error_is_a_tocsearch_error() -> None:
    """Every name in tocsearch.errors.__all__ is a TocsearchError class and is in the tree."""
    for name in errors.__all__:
        error = getattr(errors, name)
        assert issubclass(error, TocsearchError)
        assert error is TocsearchError or error in PARENTS


def test_docstring_tree_names_every_error() -> None:
    """The tree drawn in the module docstring names every exported error."""
    assert errors.__doc__ is not None
    for name in errors.__all__:
        assert name in errors.__doc__


def test_errors_do_not_cross_branches() -> None:
    """A lookup failure is not a ValueError and a bad argument is not a KeyError."""
    assert not issubclass(NodeNotFound, ValueError)
    assert not issubclass(InvalidArgument, KeyError)
    assert not issubclass(StorageError, (ValueError, KeyError))


@pytest.mark.parametrize("error", [NotFound, NodeNotFound, GripNotFound, EventNotFound])
def test_not_found_message_has_no_extra_quotes(error: type[NotFound]) -> None:
    """str() of a not-found error is its message, not KeyError's quoted repr."""
    assert str(error("x")) == "x"
    assert str(error("node not found: 'toc:year:2026'")) == "node not found: 'toc:year:2026'"
    assert str(error()) == ""


def test_not_found_caught_as_key_error() -> None:
    """Callers that only know dict semantics can catch NodeNotFound as KeyError."""
    with pytest.raises(KeyError):
        raise NodeNotFound("node not found: 'toc:year:2026'")


def test_invalid_argument_caught_as_value_error() -> None:
    """Callers can catch InvalidId as ValueError."""
    with pytest.raises(ValueError, match="bad id"):
        raise InvalidId("bad id")


@pytest.mark.parametrize("error", [InvalidId("bad"), NodeNotFound("gone"), StoreLocked("held")])
def test_errors_pickle(error: Exception) -> None:
    """Errors survive pickling (e.g. across process pools) with their type and message."""
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error)
    assert str(copy) == str(error)
