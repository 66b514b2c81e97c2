#include "volent/init/network.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <net/route.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "core/errno_text.h"
#include "core/unique_fd.h"
#include "volent/init/modules.h"

namespace volent::init {
namespace {

using core::Errno;

constexpr char kEthernet[] = "eth0";

// A socket for the interface ioctls.
core::UniqueFd Socket() { return core::UniqueFd(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)); }

sockaddr_in Inet(uint32_t network_order) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = network_order;
  return a;
}

ifreq Request(const char* name) {
  ifreq r{};
  strncpy(r.ifr_name, name, IFNAMSIZ - 1);
  return r;
}


core::Status BringUp(const core::UniqueFd& s, const char* name) {
  ifreq r = Request(name);
  if (ioctl(s.get(), SIOCGIFFLAGS, &r) != 0) return Errno(std::string("flags of ") + name, errno);
  r.ifr_flags |= IFF_UP | IFF_RUNNING;
  if (ioctl(s.get(), SIOCSIFFLAGS, &r) != 0) return Errno(std::string("bring up ") + name, errno);
  return core::Status::Ok();
}

}  // namespace

core::Status BringUpLoopback() {
  const core::UniqueFd s = Socket();
  if (s.get() < 0) return Errno("socket", errno);
  return BringUp(s, "lo");
}

core::Status ConfigureEthernet(const Network& network) {
  CORE_RETURN_IF_ERROR(WaitForPath(std::string("/sys/class/net/") + kEthernet, 3000));
  const core::UniqueFd s = Socket();
  if (s.get() < 0) return Errno("socket", errno);
  in_addr address{}, gateway{};
  inet_pton(AF_INET, network.address.c_str(), &address);  // ParseCmdline checked both
  const uint32_t mask = htonl(~uint32_t{0} << (32 - network.prefix));

  ifreq r = Request(kEthernet);
  sockaddr_in a = Inet(address.s_addr);
  memcpy(&r.ifr_addr, &a, sizeof a);
  if (ioctl(s.get(), SIOCSIFADDR, &r) != 0) return Errno("address of eth0", errno);
  a = Inet(mask);
  memcpy(&r.ifr_netmask, &a, sizeof a);
  if (ioctl(s.get(), SIOCSIFNETMASK, &r) != 0) return Errno("netmask of eth0", errno);
  CORE_RETURN_IF_ERROR(BringUp(s, kEthernet));
  if (network.gateway.empty()) return core::Status::Ok();

  inet_pton(AF_INET, network.gateway.c_str(), &gateway);
  rtentry route{};
  a = Inet(0);
  memcpy(&route.rt_dst, &a, sizeof a);
  memcpy(&route.rt_genmask, &a, sizeof a);
  a = Inet(gateway.s_addr);
  memcpy(&route.rt_gateway, &a, sizeof a);
  route.rt_flags = RTF_UP | RTF_GATEWAY;
  char device[] = "eth0";
  route.rt_dev = device;
  if (ioctl(s.get(), SIOCADDRT, &route) != 0) return Errno("default route via " + network.gateway, errno);
  return core::Status::Ok();
}

}  // namespace volent::init
