"""``livetable simulate`` keeps the M-9 action limit of ``livetable run`` (issue 16 item 11).

The breaker's seat sent 1,000 actions a second to a simulated table and every one was taken
to the table: simulate built its MQTT link with its own limit (1,000 a second). With one
composition the link is built once, with the limit docs/mqtt.md gives: over 10 actions in a
second from one seat are refused ``M-9`` (the first of a window answered, the rest dropped).
"""

from __future__ import annotations

import uuid

from localbroker import needs_broker  # tests/controller is on sys.path

from controller.simtable import SimTable


@needs_broker
def test_a_tablet_flooding_a_simulated_table_is_refused_m9(tmp_path):
    from drivers.mqtt.tablet import Tablet

    table = f"m9{uuid.uuid4().hex[:8]}"
    sim = SimTable(["--headless", "--table", table, "--seats", "4", "--camera", "off", "--players", "2",
                    "--join-seats", "4"], str(tmp_path / "journal.sqlite"), max_hands=0).start()
    tablet = Tablet(table, 4, host="127.0.0.1", port=1883, username=None, password=None).start()
    try:
        tablet.wait_for(lambda t: t.state is not None, 15)
        link = sim.rig.ports.link
        assert link is not None
        ids = [tablet.send_action("sit_out") for _ in range(40)]  # a tablet stuck in a loop

        def m9(t) -> list[dict]:
            return [t.replies[i] for i in ids if (t.replies.get(i, {}).get("reason") or "").startswith("M-9")]

        # Refused M-9; after the first refusal of a window the rest of the flood is dropped
        # unanswered (counted, one log line a window: issue 16 f).
        tablet.wait_for(lambda t: m9(t) and len(m9(t)) + link.flood_dropped >= 25, 15)
        refused = m9(tablet)
        assert len(refused) <= 3, refused  # the flood lasts a window or two
        assert all(r["accepted"] is False for r in refused)
    finally:
        tablet.stop()
        sim.stop()
