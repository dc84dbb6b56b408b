*> Expected: AC. The first line of the input (GnuCOBOL, free format): its
*> length without the trailing spaces COBOL pads a field with.
IDENTIFICATION DIVISION.
PROGRAM-ID. ECHO.
DATA DIVISION.
WORKING-STORAGE SECTION.
01 LINE-IN     PIC X(4096).
PROCEDURE DIVISION.
    ACCEPT LINE-IN
    DISPLAY FUNCTION TRIM(LINE-IN TRAILING)
    STOP RUN.
