/* confdefs.h */
#define PACKAGE_NAME "subvol-tools"
#define PACKAGE_TARNAME "subvol-tools"
#define PACKAGE_VERSION "0.1"
#define PACKAGE_STRING "subvol-tools 0.1"
#define PACKAGE_BUGREPORT "bug-findutils@gnu.org"
#define PACKAGE_URL ""
#define PACKAGE "subvol-tools"
#define VERSION "0.1"
