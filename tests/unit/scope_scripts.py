"""Scripted conversations shared by the scope tests (one copy, so the tests stay in step with
the driver's write order)."""

#: What TekMSO.configure writes for CH1, 0.1 A/div, 500 kS/s, 1000 points, trigger at 0.35 A,
#: in order (MSO 4/5/6 Series programmer manual: manual horizontal mode sets rate and length).
TEK_MSO_CONFIGURE_WRITES = [
    "ACQuire:STATE STOP", "ACQuire:MODe SAMple", "ACQuire:STOPAfter SEQuence",
    "DISplay:GLObal:CH1:STATE ON", "CH1:COUPling DC", "CH1:PROBEFunc:EXTUnits:STATE ON",
    'CH1:PROBEFunc:EXTUnits "A"', "CH1:SCAle 0.1", "CH1:POSition -3", "CH1:OFFSet 0",
    "HORizontal:DELay:MODe OFF", "HORizontal:MODe MANual",
    "HORizontal:MODe:MANual:CONFIGure RECORDLength", "HORizontal:MODe:SAMPLERate 500000",
    "HORizontal:MODe:RECOrdlength 1000", "HORizontal:POSition 10", "TRIGger:A:TYPe EDGe",
    "TRIGger:A:EDGE:SOUrce CH1", "TRIGger:A:EDGE:COUPling DC", "TRIGger:A:EDGE:SLOpe RISe",
    "TRIGger:A:LEVel:CH1 0.35", "TRIGger:A:MODe NORMal",
]
