"""The serial-number gate before destroying data."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from charz.device import DriveIdentity, check_confirmation, confirmation_for, parse_queue_limits
from charz.device.testing import SSD_QUEUE
from charz.errors import ConfirmationRequired

pytestmark = pytest.mark.unit

QUEUE = parse_queue_limits(SSD_QUEUE)


def drive(serial="S3Z1NB0K123456X", transport="sata", model="Samsung SSD 860 EVO 500GB"):
    return DriveIdentity("/dev/sdb", "sdb", 8, 16, model, serial, "RVT04B6Q", 500107862016, transport, False,
                         512, 512, QUEUE)


def test_text_shows_model_serial_and_size():
    c = confirmation_for(drive(), "secure-erase")
    assert c.expected == "S3Z1NB0K123456X" and c.token_name == "serial number"
    assert "secure-erase /dev/sdb: ALL DATA ON IT WILL BE LOST" in c.text
    assert "Samsung SSD 860 EVO 500GB" in c.text
    assert "S3Z1NB0K123456X" in c.text
    assert "500,107,862,016 bytes (500.1 GB, 465.8 GiB)" in c.text


def test_exact_serial_passes_blanks_ignored():
    check_confirmation(drive(), "S3Z1NB0K123456X", "discard")
    check_confirmation(drive(), "  S3Z1NB0K123456X\n", "discard")


@pytest.mark.parametrize("typed", ["", "s3z1nb0k123456x", "S3Z1NB0K123456", "S3Z1NB0K123456XX", "sdb", "yes"])
def test_anything_else_is_refused(typed):
    with pytest.raises(ConfirmationRequired, match="not confirmed") as info:
        check_confirmation(drive(), typed, "format")
    assert "nothing was changed" in info.value.hint


def test_missing_confirmation_shows_the_text_and_how_to_script_it():
    with pytest.raises(ConfirmationRequired, match="needs confirmation") as info:
        check_confirmation(drive(), None, "discard")
    assert "S3Z1NB0K123456X" in str(info.value)
    assert "--confirm-serial S3Z1NB0K123456X" in info.value.hint  # the option a user can type
    assert str(info.value).startswith("/dev/sdb needs confirmation")


def test_messages_read_as_sentences_for_an_action_that_ends_in_a_preposition():
    # Issue 15 (5): "destroys all data on needs confirmation ... pass confirm_serial='loop6'".
    c = confirmation_for(drive(serial=None, transport="loop", model=None),
                         "the characterization sweep overwrites the first 345 MiB of")
    assert c.text.splitlines()[0] == ("the characterization sweep overwrites the first 345 MiB of /dev/sdb: "
                                      "ALL DATA ON IT WILL BE LOST")
    with pytest.raises(ConfirmationRequired) as info:
        c.check(None)
    first = str(info.value).splitlines()[0]
    assert "of needs" not in first and first.startswith("/dev/sdb needs confirmation")
    assert "confirm_serial=" not in info.value.hint and "--confirm-serial sdb" in info.value.hint
    with pytest.raises(ConfirmationRequired) as info:
        c.check("sda")
    assert str(info.value) == "not confirmed: 'sda' is not the device name of /dev/sdb"


def test_the_text_asks_nothing_the_prompt_asks_and_a_script_is_told_it_confirmed():
    c = confirmation_for(drive(), "discard")
    assert "type" not in c.text.lower()
    assert c.confirmed_line() == ("confirmed by --confirm-serial: S3Z1NB0K123456X is the serial number "
                                  "of /dev/sdb")


def test_device_without_serial_is_confirmed_with_its_name():
    c = confirmation_for(drive(serial=None, transport="loop", model=None), "discard")
    assert (c.expected, c.token_name) == ("sdb", "device name")
    assert "(none: this loop device has no serial)" in c.text and "(none reported)" in c.text
    c.check("sdb")


@given(st.text(min_size=1, max_size=20).filter(lambda s: s.strip() == s and s), st.text(max_size=20))
def test_only_the_serial_itself_passes(serial, typed):
    c = confirmation_for(drive(serial=serial), "discard")
    if typed.strip() == serial:
        c.check(typed)
    else:
        with pytest.raises(ConfirmationRequired):
            c.check(typed)
