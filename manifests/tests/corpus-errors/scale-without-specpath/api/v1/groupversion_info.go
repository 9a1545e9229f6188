// +groupName=e6.errors.rkb.io
package v1
