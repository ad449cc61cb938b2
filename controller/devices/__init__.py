"""The table's devices: one adapter per device behind a small composition (issue 9, 16).

- :mod:`.shuffler`  the shuffler's dealer port and adapter, start-up's questions to it;
- :mod:`.seats`     the seat panel (buttons, the dealer console);
- :mod:`.mqtt`      the MQTT link: tablets' actions and requests, the floor desk;
- :mod:`.camera`    the camera and its board check;
- :mod:`.history`   finished hands written as PHH; :mod:`.ports` the orchestrator's ports;
- :mod:`.adapter`   :class:`DriverAdapter`, the one object the orchestrator sees;
- :mod:`.build`     :class:`DeviceChoice` (real or simulated, per device) and building them.

The table itself is composed once, for ``livetable run`` and ``livetable simulate`` alike,
by :class:`controller.composition.TableRun`; what only simulation uses lives beside the
simulation (``controller/simcamera.py``, ``controller/simdevices.py``, ``controller/simtable.py``,
``controller/simtablets.py``, the shuffler emulator).
"""

from controller.devices.adapter import DriverAdapter
from controller.devices.build import DeviceChoice, build_devices, choice_from_config
from controller.devices.history import HistoryWriter
from controller.devices.mqtt import player_for_name
from controller.devices.ports import DevicePorts
from controller.devices.shuffler import ShufflerDealer

__all__ = ["DriverAdapter", "DeviceChoice", "build_devices", "choice_from_config", "HistoryWriter",
           "player_for_name", "DevicePorts", "ShufflerDealer"]
