// +groupName=e18.errors.rkb.io
package v1
