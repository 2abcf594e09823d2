// ICU's regular expression C API from macOS's own libicucore (what NSRegularExpression runs on there), for
// MockdPlatform's BoundedRegex: the SDK ships the library without its headers, so the few stable ICU 4.0+ calls used
// are declared here. Linux uses the toolchain's _FoundationICU instead: only the macOS build depends on this module.
#include <stdint.h>

typedef struct URegularExpression URegularExpression;
typedef uint16_t UChar;
typedef int8_t UBool;
/// UErrorCode: <= 0 is success; U_REGEX_TIME_OUT is 66322, U_REGEX_STOPPED_BY_CALLER 66323.
typedef int32_t CDarwinICUStatus;
typedef UBool CDarwinICUMatchCallback(const void *context, int32_t steps);

URegularExpression *uregex_open(const UChar *pattern, int32_t patternLength, uint32_t flags, void *parseError,
                                CDarwinICUStatus *status);
URegularExpression *uregex_clone(const URegularExpression *regexp, CDarwinICUStatus *status);
void uregex_close(URegularExpression *regexp);
void uregex_setText(URegularExpression *regexp, const UChar *text, int32_t textLength, CDarwinICUStatus *status);
UBool uregex_matches(URegularExpression *regexp, int32_t startIndex, CDarwinICUStatus *status);
UBool uregex_find(URegularExpression *regexp, int32_t startIndex, CDarwinICUStatus *status);
void uregex_setTimeLimit(URegularExpression *regexp, int32_t limit, CDarwinICUStatus *status);
void uregex_setMatchCallback(URegularExpression *regexp, CDarwinICUMatchCallback *callback, const void *context,
                             CDarwinICUStatus *status);
